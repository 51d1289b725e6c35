// Package checkpoint snapshots workspaces into git commits under hidden
// refs, diffs and restores them, and manages per-thread git worktrees
// (docs/ARCHITECTURE.md, "Checkpoints and rollback"). It imports only
// the standard library and runs the real git binary (2.36 or newer:
// core.fsync) with exec.CommandContext. Only internal/host (the kernel's
// checkpoint executor) and internal/cli (diffs, worktrees) use it; core
// never does.
//
// # API
//
//	New(stateDir, Options) *Manager
//	Capture(ctx, workspace, thread, scope) (Checkpoint, error)
//	Diff(ctx, workspace, from, to) (Diff, error)
//	DiffOnly(ctx, workspace, from, to, paths) (Diff, error)   Diff of those paths
//	Stats(ctx, workspace, from, to) (Diff, error)   Diff without the patch
//	Restore(ctx, workspace, thread, commit) (Restored, error)
//	RestoreOnly(ctx, workspace, thread, commit, from, only, force) (Restored, error)
//	Dirty(ctx, workspace, since) (bool, error)
//	Refs(ctx, workspace, thread) ([]Ref, error)
//	Resolve(ctx, workspace, rev) (commit, error)
//	DeleteRef(ctx, workspace, thread, scope) / DeleteThread(ctx, workspace, thread)
//	AddWorktree(ctx, repo, path, commit, branch) (Worktree, error)
//	WorktreeDirty(ctx, path) (bool, error)
//	RemoveWorktree(ctx, repo, path, force) error
//	ListWorktrees(ctx, repo) ([]Worktree, error)
//	RepoTop(ctx, dir) (top, error)                 "" outside a repository
//	BranchExists(ctx, repo, name) (bool, error)
//	WorktreeDiff(ctx, repo, path) (BranchDiff, error)
//	CommitWorktree(ctx, path, message) (Committed, error)
//	MergeWorktree(ctx, repo, path) (Merged, error)
//	Info(ctx, workspace) (Workspace, error)
//
// A Manager is safe for concurrent use; calls on one workspace are
// serialized (waiting for a busy workspace ends with the caller's
// context), calls on different workspaces run in parallel. Every call
// blocks on git: the kernel runs them as effects, never inside Decide,
// Apply or a Bubble Tea Update. git runs in its own process group, killed
// and reaped when the context ends; GIT_* variables of our environment
// (GIT_DIR, GIT_INDEX_FILE, ...) are dropped so they cannot redirect it.
//
// # Refs and commits
//
// A checkpoint is a commit whose tree is the whole work tree (tracked and
// untracked files, ignored ones left out) and whose ref is
//
//	refs/nexus/checkpoints/<thread>/<scope>
//
// Scopes may have several '/'-separated parts; the kernel uses "base"
// for the baseline before run 1, "run<N>" at run N's completion
// barrier, "node/<run>/<attempt>/<node>" for child scopes and "mark/<k>"
// for marks.
// (A scope cannot be both a ref and a folder of refs: "run/1" and
// "run/1/x" conflict.) refs/nexus/tips/<thread> is the checkpoint the
// thread's workspace last matched; it is the next capture's first parent,
// so a thread's checkpoints form a chain. The second parent is the
// workspace's HEAD at capture (the base), which keeps it reachable and
// tells AddWorktree what to check out. The message carries the trailers
// Nexus-Thread, Nexus-Scope, Nexus-Previous and Nexus-Base. Checkpoint
// authors are "nexus <nexus@localhost>".
//
// # Capture
//
// Capture never writes the user's index, HEAD, branches, stash or config.
// It works on a temporary index (GIT_INDEX_FILE in a temporary directory
// under <stateDir>/checkpoints/tmp) seeded with the user's index: a hard
// link when the state dir shares its file system (git replaces an index
// by renaming a new file over it, never writing in place, so the user's
// file is never modified), else a copy with the mtime kept. Either way
// git trusts the stat data, hashes only changed files, and racily clean
// entries stay racy. With no index to seed from it starts from
// `read-tree HEAD`. One `ls-files -t -m -o --exclude-standard` lists
// changed, deleted and untracked files while the file and byte bounds are
// counted, feeding `update-index --add --remove --replace --stdin`, which
// hashes exactly those paths: `git add -A`, with the bounds checked
// before anything is hashed. Starting from the user's index rather than
// HEAD also keeps files force-added despite .gitignore, and
// sparse-checkout entries. An index in the middle of a merge has its
// conflicted paths taken from the work tree.
//
// The rest is done by the package itself, to save git processes: in
// steady state a capture runs three (ls-files, update-index, update-ref)
// where `git add -A && git write-tree` runs two, and takes about 1.3
// times as long, durability included (BENCHMARKS.md).
//
//   - Trees (trees.go): built from the temporary index as write-tree
//     builds them. The index's cache-tree names the tree of every
//     directory update-index did not touch, so only the touched ones and
//     their parents are serialized, hashed and written. Like
//     `write-tree --missing-ok` it does not look up the objects the index
//     names (each was in the user's index or was just hashed). git
//     write-tree still builds them for what the package does not read: a
//     split or sparse index, unmerged entries, or more than 64 trees to
//     write (maxBuiltTrees: an index without a cache-tree).
//   - The commit (tree, parents, "nexus <nexus@localhost>" in UTC,
//     message): exactly what commit-tree would write.
//   - The refs it reads (tips.go): the thread's tip is remembered from
//     its last capture, HEAD read from the repository's files (HEAD, the
//     branch's loose ref or packed-refs) and trusted when git has shown
//     that commit before. A cold Manager, a new HEAD commit, a Restore
//     or a ref format the package does not read (reftable) costs one
//     `cat-file --batch`. A remembered tip is checked by the ref
//     transaction itself: if another process moved it, the transaction
//     fails and the capture looks the tip up and commits again (the
//     first commit stays behind, unreferenced, for git gc).
//   - Checkpoint.Changed (trees.go): counted while the trees are built,
//     by comparing the index with the one the thread's previous
//     checkpoint was written from, kept in <stateDir>/checkpoints/last
//     (a shadow repository's own index serves). It is used only when its
//     tree is the parent's and the file is still the one kept (inode,
//     size and time); else `git diff-tree` counts, after the refs moved.
//
// The kept index is not used as the next capture's seed, though its stat
// data is as fresh: the rest of a subdirectory workspace's tree must be
// the user's index, and a file the user force-adds later must be
// captured. The benchmark's baseline seeds its temporary index from the
// user's index in the same way.
//
// One `update-ref --stdin` transaction moves the scope ref and the tip
// (the tip compare-and-swapped). git is started while the trees are
// built, told to "prepare" (lock both refs, check the tip, write and
// sync the lock files) while the objects are published, and to "commit"
// (rename the lock files into place) only once they are; if anything
// fails before, it aborts (commit.go).
//
// Durability: update-index writes the blobs, and the package the commit,
// into a quarantine directory (objects/tmp_objdir-nexus-*, the way git's
// own receive-pack quarantines); the trees it writes straight into their
// object directories under temporary names (objects/xx/tmp_obj_*, as git
// writes its own objects, invisible to git), which saves a directory
// each. Every new object file is fsynced (in parallel; the blobs while
// the trees are built), hard-linked or renamed into its place, and the
// object directories that changed are fsynced; only then does the ref
// transaction commit, with core.fsync=objects,reference and
// core.fsyncMethod=fsync. So a crash leaves the old ref or the new one,
// never an empty ref or one naming a missing object, and no half-written
// object under its name (git gc prunes temporary files a crash leaves
// in objects/xx, and the next capture old quarantines). git fsyncs a
// ref's file but not the directories naming it, so a capture fsyncs the
// scope's own directories (node/2/a1/ for scope node/2/a1/n3),
// refs/nexus/checkpoints/<thread>, refs/nexus/tips and the directories
// above them before it reports the checkpoint; a new shadow repository
// is fsynced file by file before it is renamed into place, and the state
// dir's checkpoints/ directories are fsynced as they are made. The
// root package's TestPowerLoss checks after every power cut that each
// checkpoint the journal calls ready still resolves by its ref. A
// capture that fails or is stopped removes what it wrote (objects.go).
//
// Bounds: Options.CaptureTimeout (30s) kills git's process group and
// returns a *BoundError of kind time; MaxFiles (200,000 entries in the
// repository's index plus new untracked files) and MaxBytes (2 GiB of
// changed content, by lstat size) are counted as the changes are listed,
// each path before it is handed to update-index, and return a *BoundError
// of kind files or bytes: no file past a bound is hashed, and what was
// hashed stays in the quarantine, which is removed. Either way no ref
// moves; the kernel records the checkpoint with status error and the
// error text as its reason. For a workspace below the top of a large
// repository the file bound counts the whole repository's index.
//
// Left out of every capture: ignored files (.gitignore, info/exclude,
// core.excludesFile), the state dir when it lies inside the workspace,
// untracked nested repositories (add -A would record them as gitlinks; a
// restore could not bring their files back anyway), and in a user's own
// repository untracked files whose names say they hold secrets (.env,
// .env.*, private keys, *.pem, *.key, .netrc, credentials files:
// secrets.go), since refs/nexus/... is published by `git push --mirror`;
// a restore leaves those alone. A shadow repository keeps them.
// Submodules are recorded as gitlinks; their files are not restored.
//
// # Git never runs what a repository names
//
// An agent that may write files or run commands can edit a repository's
// configuration, attributes or hooks, and git runs programs those name.
// Every git process of this package therefore starts with settings that
// win over every configuration file (safegit.go), each tested by planting
// it (safegit_test.go):
//   - core.fsmonitor=false: the fsmonitor query hook (ls-files,
//     update-index, status).
//   - core.hooksPath=/dev/null: every hook, post-index-change and
//     post-checkout (worktree add) among them.
//   - filter.<name>.clean, .smudge and .process emptied and .required
//     false, for every filter the configuration defines, its includes
//     followed: filter names are free-form, so `git config --list` is read
//     first and again whenever a file it came from changes.
//     write-tree is among the commands that get these: it can start a
//     process filter (with a .gitattributes just added to the index).
//   - --no-ext-diff and --no-textconv on every diff: no diff.external,
//     diff.<driver>.command or textconv program.
//   - core.sshCommand, core.askPass, credential.helper,
//     protocol.allow=never, uploadpack.packObjectsHook and
//     core.alternateRefsCommand: no transport or credential program, for
//     commands that never need one.
//   - GIT_CONFIG_NOSYSTEM and GIT_ATTR_NOSYSTEM: no system-wide
//     configuration or attributes; every other GIT_ variable of the
//     environment is dropped (keepEnv).
//
// Workers refuse an agent's writes into any .git directory in the first
// place (workers/doc.go); these settings cover what an approved command
// may have changed, and the user's own configuration.
//
// # Workspaces
//
// A workspace inside a git work tree uses that repository (a linked
// worktree uses its own HEAD and index; refs are shared). When the
// workspace is a subdirectory, Capture, Restore, Diff and Dirty look at
// and touch only files under it (Workspace.Prefix); the rest of the
// checkpoint's tree is the user's index. Paths in results are relative
// to the workspace. The repository found the first time is pinned
// (<stateDir>/checkpoints/pins/<sha256(path)[:16]>, pin.go): a .git that
// appears in the workspace later (an agent's `git init`) is never
// adopted, by this process or a later one, and a pinned repository that
// is gone is an error naming it.
//
// A workspace outside any repository, or in a directory its repository
// ignores, gets a shadow repository
// <stateDir>/checkpoints/shadow/<sha256(path)[:16]>.git used through
// GIT_DIR and GIT_WORK_TREE: nothing is created inside the workspace.
// Once a workspace has a shadow repository it keeps it, even if it later
// becomes a git repository, so its checkpoints stay in one place. The
// shadow's own index is a cache of stat data, replaced after each
// capture and restore. Once a shadow repository holds about
// Options.PackAfter loose objects (4096), the capture that passed it
// packs them, after its checkpoint is done and outside its time bound:
// git repack (core.fsync=all), an fsync of the pack directory, then git
// prune-packed, so a power cut never leaves an object only in a pack
// whose name is not durable. Refs stay loose; a user's own repository is
// never packed (pack.go).
//
// # Restore
//
// Restore makes the files under the workspace equal the checkpoint: a
// temporary index seeded with the user's index gets the checkpoint's tree
// with `read-tree -m` (which keeps stat data where content matches), one
// `ls-files -m -o` lists what differs, `checkout-index -f -u --stdin`
// rewrites changed and deleted files, and untracked files are removed one
// by one (never directories, never below a symbolic link), pruning the
// directories that emptied. What counts as ignored follows the
// checkpoint's own .gitignore files: when a .gitignore is rewritten the
// listing is taken again before anything is removed. The loop ends when
// a listing is empty; paths that still differ after one attempt
// (submodules, nested repositories) are reported as Skipped. Because all
// of it is computed from the disk, Restore is idempotent: run it again
// after a crash or a timeout and it finishes. Empty directories git
// cannot record are left alone.
//
// RestoreOnly is how a rollback restores: of the paths that differ
// between from (where the thread left the workspace) and the checkpoint,
// only those in only (a thread's own changes; nil: all of them) are put
// back; everything else in the directory stays. A path whose file
// differs from both from and the checkpoint was changed since by someone
// else: it is kept and reported in Kept, unless force. Two listings
// (against each commit's tree) decide it all from the disk, so it too is
// idempotent: a path already as the checkpoint has it counts as done.
//
// # How the kernel calls it
//
//   - Run 1 start: Capture(ws, thread, "base") as the baseline.
//   - Completion barrier of run N (also interrupted and failed runs):
//     Capture(ws, thread, "run<N>"); a *BoundError or any other error is
//     recorded as checkpoint status error with err.Error() as reason;
//     checkpoint.capture is idempotent, so redo it after a crash. Then
//     Stats(ws, the parent commit the kernel named, the new commit) for
//     the files the run changed, skipped when Capture counted no change
//     (Changed 0) against that same parent; a Stats error leaves the
//     checkpoint ready, without its file list.
//   - Subagent node that ran a step which can change files, when it
//     ends: Capture(ws, thread, "node/<run>/<attempt>/<node>"); a mark
//     (`nexus checkpoint T`): Capture(ws, thread, "mark/<k>"). Both then
//     Stats against the same parent a run's capture would use. The host
//     runs one workspace's captures and restores in the order the kernel
//     issued them, so a node is captured before its run.
//   - nexus diff T --run N: Diff(ws, checkpoint of run N-1 (base for
//     N=1; after a rollback, the newest earlier one not stale), checkpoint
//     of run N). Pass commits when the journal has them: a scope's ref is
//     replaced if that scope is captured again.
//   - Before a rollback or an undo changes anything: Capture(ws, thread,
//     "safety/rollback<k>"), the workspace as it is, which its undo
//     restores (no Stats: nothing is listed).
//   - Rollback to run N (after the provider step): RestoreOnly(ws,
//     thread, run N's commit, the thread's newest checkpoint, the undone
//     runs' own paths, force); on recovery call it again. Later
//     checkpoints are marked stale in the journal; their refs stay. An
//     undo: RestoreOnly(ws, thread, the safety commit, the commit the
//     rollback restored, the paths it changed, force). Operations
//     journaled before this (no from) use Restore.
//   - rollback.node, and a rollback to a mark: the same with that
//     checkpoint, then Dirty(ws, the run's own checkpoint) says whether
//     the files now differ from it (the work after the node or the mark
//     is undone).
//   - A run's capture lists only the run's own changes: the host keeps
//     the Stats files the agent reported writing or that were modified
//     during one of the run's commands, and counts the rest.
//   - Fork --worktree: AddWorktree(ws, path, checkpoint ref, "") then,
//     before the fork's first run, Capture(worktree.Workspace, fork,
//     "base"); thread new --worktree
//     --branch B: AddWorktree(ws, path, "HEAD", B).
//   - Archive: WorktreeDirty(path) (ask the user when true), then
//     RemoveWorktree(ws, path, force) after consent.
//   - The UI's worktree dialog (through internal/cli): WorktreeDiff(repo,
//     path) shows what the worktree holds against the branch checked out
//     in repo, from their merge base to its files now (untracked ones
//     included, read through a temporary index); CommitWorktree(path,
//     message) commits all of it as the user (user.name, user.email);
//     MergeWorktree(repo, path) merges its branch into repo's branch as
//     `git merge --no-edit` would, refusing while either side has
//     uncommitted work, and aborting on a conflict (*MergeConflictError).
//     Hooks, filters, merge drivers and signing never run: a path whose
//     attributes name a filter or a custom merge driver (git-lfs) is
//     refused (*ProgramAttrError) rather than committed or merged
//     differently than git would. These are the only calls that write a
//     user's index, branches and files on purpose, and only when asked.
//     RepoTop and BranchExists only ask: whether a new thread's
//     workspace can have a worktree, and whether a default branch name
//     is taken.
//
// Errors are typed (errors.go): each says what failed and what to do.
package checkpoint
