package checkpoint

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Sentinel errors. The typed errors below match them with errors.Is, so
// the kernel can pick a checkpoint status or a rejection reason without a
// type assertion.
var (
	// ErrBound matches *BoundError: a capture ran past its time or size bound.
	ErrBound = errors.New("checkpoint: capture exceeded its bound; add large generated directories to .gitignore or raise the bound")
	// ErrNotGit refuses a worktree operation on a workspace that is not in
	// a git repository (its checkpoints live in a shadow repository).
	ErrNotGit = errors.New("checkpoint: workspace is not in a git repository; worktrees need one (run git init and commit, or fork without --worktree)")
	// ErrNoCommits refuses a worktree for a repository, or a checkpoint,
	// that has no commit to check out.
	ErrNoCommits = errors.New("checkpoint: the repository has no commit to base a worktree on; commit once (git commit --allow-empty -m start), or work without a worktree of its own")
	// ErrNotFound says a checkpoint commit or ref does not exist in the
	// workspace's repository.
	ErrNotFound = errors.New("checkpoint: checkpoint not found; its ref may have been deleted or the repository garbage-collected (record the checkpoint missing)")
	// ErrName refuses a thread or scope that cannot be part of a ref name.
	ErrName = errors.New("checkpoint: bad thread or scope name; use letters, digits, '.', '_' and '-' in '/'-separated parts")
	// ErrWorkspace says the workspace directory is missing or unusable.
	ErrWorkspace = errors.New("checkpoint: workspace is not a usable directory; check the thread's workspace path")
	// ErrWorktreeDirty matches *DirtyWorktreeError.
	ErrWorktreeDirty = errors.New("checkpoint: worktree holds uncommitted work; commit or discard it, or remove it with force")
	// ErrNothingToCommit says a worktree holds no change to commit.
	ErrNothingToCommit = errors.New("checkpoint: nothing to commit: the worktree has no change")
	// ErrMergeConflict matches *MergeConflictError.
	ErrMergeConflict = errors.New("checkpoint: the merge conflicts; it was aborted")
	// ErrNoGit says the git binary could not be run.
	ErrNoGit = errors.New("checkpoint: git is not installed or not runnable; install git or set Options.Git")
)

// BoundKind names the bound a capture ran past.
type BoundKind string

// The bounds of a capture.
const (
	BoundTime  BoundKind = "time"
	BoundFiles BoundKind = "files"
	BoundBytes BoundKind = "bytes"
)

// BoundError says a capture was stopped at its time or size bound. The
// capture wrote no ref; the kernel records the checkpoint with status
// error and this message as the reason.
type BoundError struct {
	Workspace string
	Kind      BoundKind
	// Limit and Seen are in the bound's unit: files or bytes. For the time
	// bound Limit is the duration and Seen is zero.
	Limit, Seen int64
	Path        string // for a size bound, the path being counted when it tripped
}

func (e *BoundError) Error() string {
	switch e.Kind {
	case BoundTime:
		return fmt.Sprintf("checkpoint: capture of %s took longer than %s and was stopped; add large generated directories to .gitignore or raise the capture time bound",
			e.Workspace, time.Duration(e.Limit))
	case BoundFiles:
		return fmt.Sprintf("checkpoint: capture of %s stopped at %d files (bound %d); add large generated directories to .gitignore or raise the file bound",
			e.Workspace, e.Seen, e.Limit)
	default:
		return fmt.Sprintf("checkpoint: capture of %s stopped at %d bytes of changed content near %s (bound %d); add large files to .gitignore or raise the size bound",
			e.Workspace, e.Seen, e.Path, e.Limit)
	}
}

// Is makes errors.Is(err, ErrBound) true.
func (e *BoundError) Is(target error) bool { return target == ErrBound }

// DirtyWorktreeError refuses to remove a worktree holding work that would
// be lost: changed or untracked files, or commits on a detached HEAD that
// no branch, tag or checkpoint ref reaches.
type DirtyWorktreeError struct {
	Path   string
	Reason string // "uncommitted changes" or "commits on no branch"
}

func (e *DirtyWorktreeError) Error() string {
	return fmt.Sprintf("checkpoint: worktree %s holds %s; commit or discard them, or remove it with force", e.Path, e.Reason)
}

// Is makes errors.Is(err, ErrWorktreeDirty) true.
func (e *DirtyWorktreeError) Is(target error) bool { return target == ErrWorktreeDirty }

// MergeConflictError says merging a worktree's branch stopped on
// conflicts; the merge was aborted, so the work tree is as before.
type MergeConflictError struct {
	Into, From string   // the branches
	Dir        string   // the work tree merged into
	Files      []string // the conflicting paths
}

func (e *MergeConflictError) Error() string {
	files := e.Files
	more := ""
	if len(files) > 5 {
		files, more = files[:5], fmt.Sprintf(" and %d more", len(e.Files)-5)
	}
	return fmt.Sprintf("checkpoint: merging %s into %s conflicts in %s%s; the merge was aborted; merge by hand in %s (git merge %s) and resolve them",
		e.From, e.Into, strings.Join(files, ", "), more, e.Dir, e.From)
}

// Is makes errors.Is(err, ErrMergeConflict) true.
func (e *MergeConflictError) Is(target error) bool { return target == ErrMergeConflict }

// ProgramAttrError refuses to commit or merge a path whose attributes
// name a program (a filter, a custom merge driver): the package never
// runs those, and without them git would write something else.
type ProgramAttrError struct {
	Path, Attr string
	What       string // "commit" or "merge"
	Dir        string
}

func (e *ProgramAttrError) Error() string {
	return fmt.Sprintf("checkpoint: %s has the attribute %s, whose program nexus never runs; %s it in a terminal in %s",
		e.Path, e.Attr, e.What, e.Dir)
}

// GitError says a git command failed. Stderr holds the end of what git
// printed, which usually names the cause.
type GitError struct {
	Op     string // what nexus was doing: "capture", "restore", ...
	Args   []string
	Stderr string
	Err    error
}

func (e *GitError) Error() string {
	msg := strings.TrimSpace(e.Stderr)
	if i := strings.LastIndexByte(msg, '\n'); i >= 0 {
		// The last line is git's verdict (fatal: ...); earlier lines are hints.
		msg = strings.TrimSpace(msg[i+1:])
	}
	if msg == "" {
		msg = e.Err.Error()
	}
	return fmt.Sprintf("checkpoint: %s: git %s failed: %s; %s", e.Op, firstWord(e.Args), msg, remedy(e.Op))
}

// remedy is what a person can do when the git behind op fails.
func remedy(op string) string {
	switch op {
	case "capture":
		return "the checkpoint is recorded as error; check the repository with git fsck"
	case "restore":
		return "fix the cause and run the rollback again (it resumes where it stopped)"
	case "add worktree":
		return "choose another worktree path or branch name"
	case "remove worktree":
		return "check git worktree list; unlock or remove it by hand if git refuses"
	case "commit worktree":
		return "commit in a terminal in the worktree to see git's full message"
	case "merge worktree":
		return "merge in a terminal in the repository to see git's full message"
	case "open workspace":
		return "check that the workspace is readable and, for a repository, that git trusts it (safe.directory)"
	default:
		return "check the repository with git fsck"
	}
}

func (e *GitError) Unwrap() error { return e.Err }

// firstWord is the git subcommand of args, skipping -c options.
func firstWord(args []string) string {
	for i := 0; i < len(args); i++ {
		if args[i] == "-c" {
			i++
			continue
		}
		return args[i]
	}
	return ""
}
