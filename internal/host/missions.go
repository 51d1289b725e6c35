package host

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/internal/config"
	"github.com/nexus-tui/nexus/internal/failpoint"
	"github.com/nexus-tui/nexus/store/checkpoint"
)

// VerifyTimeout bounds one verification command; one that runs longer is
// killed and counts as failed.
const VerifyTimeout = 30 * time.Minute

// maxVerifyOutput is what is kept of a verifier's output before the
// kernel clips it to core.MaxCheckOutput (head and tail).
const maxVerifyOutput = 1 << 20

// missioner runs the kernel's mission steps (core.EffMission): worktrees,
// verification commands, commits and merges with the checkpoint
// manager's neutral git, and reports each as an ObsMission. Steps of one
// mission run one at a time, in the order the kernel issued them; steps
// of different missions run at once.
type missioner struct {
	m    *checkpoint.Manager
	root string // worktrees go in root/<thread or mission id>
	sink interface {
		Observe(ctx context.Context, o core.Observation) error
	}
	ctx context.Context
	wg  sync.WaitGroup

	mu     sync.Mutex
	queues map[string][]core.Effect
}

func (x *missioner) exec(e core.Effect) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.queues == nil {
		x.queues = map[string][]core.Effect{}
	}
	q, busy := x.queues[e.Mission]
	x.queues[e.Mission] = append(q, e)
	if busy {
		return
	}
	x.wg.Add(1)
	go x.drain(e.Mission)
}

func (x *missioner) drain(mission string) {
	defer x.wg.Done()
	for {
		x.mu.Lock()
		q := x.queues[mission]
		if len(q) == 0 {
			delete(x.queues, mission)
			x.mu.Unlock()
			return
		}
		e := q[0]
		x.mu.Unlock()
		o := x.run(e)
		if x.ctx.Err() == nil {
			_ = x.sink.Observe(x.ctx, o)
		}
		x.mu.Lock()
		x.queues[mission] = x.queues[mission][1:]
		x.mu.Unlock()
	}
}

func (x *missioner) wait() { x.wg.Wait() }

// run does one step.
func (x *missioner) run(e core.Effect) core.Observation {
	o := core.Observation{Kind: core.ObsMission, Key: e.Key, Mission: e.Mission, Task: e.Task}
	failpoint.Hit("mission." + e.Op)
	ctx := x.ctx
	var err error
	switch e.Op {
	case core.OpWorktree:
		var wt checkpoint.Worktree
		wt, err = x.m.AddWorktree(ctx, e.Workspace, filepath.Join(x.root, e.Thread), e.Commit, e.Text)
		if err == nil && wt.Workspace == "" {
			wt.Workspace = wt.Path
		}
		o.Text = wt.Workspace
	case core.OpVerify:
		o.Text, o.Exit, err = verify(ctx, e.Workspace, e.Text)
	case core.OpCommit:
		var c checkpoint.Committed
		c, err = x.m.CommitWorktree(ctx, e.Workspace, e.Text)
		if errors.Is(err, checkpoint.ErrNothingToCommit) {
			c.Commit, err = x.m.Resolve(ctx, e.Workspace, "HEAD")
		}
		if err == nil && e.Commit != "" {
			// The task's whole change, from the mission's base: the same
			// whether this commit was made now or before a crash.
			var d checkpoint.Diff
			if d, err = x.m.Stats(ctx, e.Workspace, e.Commit, c.Commit); err == nil {
				c.Files = len(d.Files)
			}
		}
		o.Commit, o.Changed = c.Commit, c.Files
	case core.OpUndo:
		o.Commit, err = x.m.UndoMerge(ctx, e.Workspace, e.Commit, e.Text, e.From)
	case core.OpDiff:
		o.Text, err = x.diff(ctx, e)
	case core.OpMerge, core.OpApply:
		var mg checkpoint.Merged
		mg, err = x.m.MergeWorktree(ctx, e.Workspace, e.From)
		o.Commit = mg.Commit
		o.Text = fmt.Sprintf("merged %s into %s", mg.From, mg.Into)
	default:
		err = fmt.Errorf("unknown mission step %q", e.Op)
	}
	if err != nil {
		o.Error = err.Error()
	}
	failpoint.Hit("mission.done")
	return o
}

// diff reads the change a reviewer is shown: from e.From (the mission's
// base) to e.Commit (a task's commit, or the HEAD of the mission's
// worktree) in e.Workspace, as reviewText words it.
func (x *missioner) diff(ctx context.Context, e core.Effect) (string, error) {
	to := e.Commit
	if to == "" {
		var err error
		if to, err = x.m.Resolve(ctx, e.Workspace, "HEAD"); err != nil {
			return "", err
		}
	}
	d, err := x.m.Diff(ctx, e.Workspace, e.From, to)
	if err != nil {
		return "", err
	}
	return reviewText(d, core.MaxReviewDiff), nil
}

// reviewText is a diff as a reviewer reads it: a summary line, each
// file with its status and line counts, then the patch, cut at a line
// boundary so that the whole fits in limit bytes, with a last line that
// says so when it was cut.
func reviewText(d checkpoint.Diff, limit int) string {
	if len(d.Files) == 0 {
		return "(no change)"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d files changed, +%d -%d lines:\n", len(d.Files), d.Added, d.Deleted)
	for i, f := range d.Files {
		if i == 50 || b.Len() > limit/4 {
			fmt.Fprintf(&b, "  ... and %d more files\n", len(d.Files)-i)
			break
		}
		if f.Binary {
			fmt.Fprintf(&b, "  %s %s (binary)\n", f.Status, f.Path)
		} else {
			fmt.Fprintf(&b, "  %s %s (+%d -%d)\n", f.Status, f.Path, f.Added, f.Deleted)
		}
	}
	b.WriteString("\n")
	const note = "\n[the diff was cut at %d KiB of %d bytes%s; the rest is not shown]\n"
	room := limit - b.Len() - len(note) - 40
	patch, cut := d.Patch, d.Truncated
	if len(patch) > room {
		patch, cut = patch[:max(0, room)], true
		if i := strings.LastIndexByte(patch, '\n'); i >= 0 {
			patch = patch[:i+1]
		}
		patch = strings.ToValidUTF8(patch, "")
	}
	b.WriteString(patch)
	if cut {
		more := ""
		if d.Truncated {
			more = " or more"
		}
		fmt.Fprintf(&b, note, limit>>10, len(d.Patch), more)
	}
	return b.String()
}

// verify runs a verification command with sh in dir and returns its
// output (stdout and stderr together, bounded) and exit code. A command
// that cannot start is an error; one that fails is an exit code.
func verify(ctx context.Context, dir, command string) (string, int, error) {
	ctx, cancel := context.WithTimeout(ctx, VerifyTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", command)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PAGER=cat", "GIT_PAGER=cat", "GIT_TERMINAL_PROMPT=0", "NEXUS_VERIFY=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	var out capped
	out.max = maxVerifyOutput
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return out.String(), 0, nil
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return out.String(), -1, fmt.Errorf("the verification did not end within %v and was killed", VerifyTimeout)
	case errors.As(err, &exit):
		code := exit.ExitCode()
		if code < 0 {
			code = 128 + int(exit.Sys().(syscall.WaitStatus).Signal())
		}
		return out.String(), code, nil
	}
	return out.String(), -1, fmt.Errorf("cannot run the verification `%s` in %s: %w", command, dir, err)
}

// capped is a buffer that keeps the first max bytes and counts the rest.
type capped struct {
	mu   sync.Mutex
	b    bytes.Buffer
	max  int
	lost int
}

func (c *capped) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	room := c.max - c.b.Len()
	if room < len(p) {
		c.lost += len(p) - max(room, 0)
		if room > 0 {
			c.b.Write(p[:room])
		}
		return len(p), nil
	}
	return c.b.Write(p)
}

func (c *capped) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.lost > 0 {
		return c.b.String() + fmt.Sprintf("\n[%d more bytes of output not kept]\n", c.lost)
	}
	return c.b.String()
}

var _ io.Writer = (*capped)(nil)

// worktreeRoot is where a mission's worktrees go: the config file's
// [worktree] dir, or STATE_DIR/worktrees, as for threads made at the
// edge.
func worktreeRoot(dir string, cfg *config.Config) string {
	home, _ := os.UserHomeDir()
	if r := cfg.WorktreeRoot(home); r != "" {
		return r
	}
	return filepath.Join(dir, "worktrees")
}
