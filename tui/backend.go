package tui

import (
	"context"
	"io"

	"github.com/nexus-tui/nexus/core"
)

// Backend is what the TUI needs from the kernel. core.Backend satisfies it,
// so the in-process core.Runner of a host and the api.Client of a client
// both plug in unchanged.
type Backend interface {
	Submit(ctx context.Context, cmd core.Command) (*core.Receipt, error)
	State(ctx context.Context) (*core.State, error)
	Subscribe(ctx context.Context, from uint64) (*core.Subscription, error)
}

var _ Backend = core.Backend(nil)

// Profile is a provider profile the new-thread dialog offers. internal/cli
// fills them from the provider registry, so tui need not import providers.
type Profile struct {
	Name        string
	Description string
	Caps        core.Capabilities
	// Allow is the default allow list of a new thread of this profile
	// (its approval policy), as core.Command.Allow.
	Allow []string
	// BudgetUSD and MaxTokens are a new thread's budget (0: none).
	BudgetUSD float64
	MaxTokens int
	// Agent is the alias of an agent identity to start the thread as
	// ("" for a plain profile); the UI adds these from the state.
	Agent string
}

// Options configure Run.
type Options struct {
	// Theme is a theme name (dark, light, high-contrast, none); "" is dark.
	// NO_COLOR in the environment forces none.
	Theme string
	// StateDir is shown in the status line.
	StateDir string
	// HostLabel says where the kernel runs, e.g. "host" or
	// "client of pid 4242"; shown in the status line.
	HostLabel string
	// HostLabelNow, when set, is asked for the label at each render
	// instead (it must not block): a client's host can change, and the
	// status line names the one it talks to now.
	HostLabelNow func() string
	// HostLabelChanged, when set, fires when HostLabelNow's answer
	// changes by itself (a hub project's owner comes or goes), so the
	// status line is drawn again on a still screen.
	HostLabelChanged <-chan struct{}
	// Remote is true when the project's host is on another machine (a
	// project on a hub): the status line names that host (HostLabelNow)
	// instead of this machine's state dir.
	Remote bool
	// Host is true when quitting this TUI stops the host (and so interrupts
	// running agents); the quit confirmation says so.
	Host bool
	// LiveTerminals, with Host, counts the live terminals (shells in a
	// PTY) that quitting would end; the quit dialog asks first when there
	// are any. It must answer quickly. nil: none are counted.
	LiveTerminals func() int
	// StopHost stops the background host this UI is a client of (its
	// live work ends); the quit dialog offers it. nil: not offered.
	StopHost func(ctx context.Context) error
	// Profiles are the provider profiles a new thread can use; the first
	// is the default. Empty means a single "builtin" profile.
	Profiles []Profile
	// Workspace is the default workspace of a new thread; "" is the
	// current directory (with Remote: none, the person writes one; a
	// path on the host's machine is taken as written, never checked
	// here).
	Workspace string
	// Diff returns the unified diff of run `run` (its ordinal) of a
	// thread, exactly as `nexus diff THREAD --run N` prints it: one line
	// per changed file with its line counts, a total, a blank line and
	// the patch against the newest ready checkpoint before the run
	// ("[diff truncated]" after a cut patch). The diff view (ctrl+d)
	// calls it in a tea.Cmd, never on the UI goroutine, with a context
	// that ends when the view closes; an error is shown as one line.
	// nil: the UI says diffs are not available.
	Diff func(ctx context.Context, thread string, run int) (string, error)
	// Worktrees are the git worktree operations of threads (the new
	// thread and fork dialogs' "own worktree", the worktree dialog).
	// nil: the UI offers no worktrees.
	Worktrees *Worktrees
	// Scrollback is how many lines each terminal pane keeps above its
	// screen, to scroll back to: 0 is DefaultScrollback, less than 0
	// none. Each attached pane holds them in memory, as text.
	Scrollback int
	// Notify says how the UI notifies (notify.go); the zero value: not
	// at all.
	Notify NotifyOptions
	// Team lists the projects on the team's hub for the team dialog
	// (team.go); it is called off the event loop. nil: no hub.
	Team func(ctx context.Context) ([]TeamProject, error)
	// Project is the hub project on screen ("" for none: a state dir's
	// own journal, or a host whose project the dialog marks by name).
	Project string
	// Thread is the thread selected at start ("" or an unknown id: the
	// most recently active).
	Thread string
	// IO replaces the terminal, for tests.
	IO IO
}

// IO overrides the program's terminal. Zero fields mean the real terminal
// and environment.
type IO struct {
	Input  io.Reader
	Output io.Writer
	// Env replaces os.Environ for the terminal and NO_COLOR.
	Env []string
	// Width and Height fix the initial window size (tests without a tty).
	Width, Height int
}

// Worktrees are the git worktree operations the UI offers on threads.
// internal/cli implements them over store/checkpoint, which tui may not
// import. Every one blocks on git: the UI calls them only from tea.Cmds,
// never on its event loop, with a context that ends with the UI. Errors
// are shown as one line.
type Worktrees struct {
	// Repo returns the root of the git work tree holding dir, or "" when
	// dir is in no repository (or its checkpoints live in a shadow
	// repository, so it cannot have worktrees). It makes nothing.
	Repo func(ctx context.Context, dir string) (string, error)
	// Add makes the worktree of a new thread or fork before the UI
	// submits thread.create or thread.fork with it.
	Add func(ctx context.Context, spec WorktreeSpec) (WorktreeMade, error)
	// Diff is the diff view's text for a worktree thread: a line naming
	// the thread's branch and the branch it came from, then what `nexus
	// diff` prints (Options.Diff) for the worktree's files now, committed
	// or not, against the two branches' merge base.
	Diff func(ctx context.Context, thread string) (string, error)
	// Commit commits everything in the thread's worktree with message and
	// says what it made, in one line.
	Commit func(ctx context.Context, thread, message string) (string, error)
	// Merge merges the thread's branch into the branch checked out where
	// its worktree came from and says what it did, in one line.
	Merge func(ctx context.Context, thread string) (string, error)
	// Dirty reports whether the thread's worktree holds work that
	// removing it would lose.
	Dirty func(ctx context.Context, thread string) (bool, error)
	// Remove removes an archived thread's worktree; force removes it
	// with uncommitted work too. Branches stay.
	Remove func(ctx context.Context, thread string, force bool) error
}

// WorktreeSpec says which worktree Worktrees.Add makes.
type WorktreeSpec struct {
	// Thread is the new thread's id; its worktree is named after it.
	Thread string
	// Dir is a new thread's workspace: the worktree checks out the HEAD
	// of the repository holding it.
	Dir string
	// From and Run make a fork's worktree instead: from the checkpoint of
	// From's run Run (its latest ready one at or before it).
	From string
	Run  int
	// Branch is the branch to make for it ("" leaves HEAD detached).
	// AutoBranch says it is the UI's suggestion, not the person's: when
	// a branch of that name exists, a free variant of it is used.
	Branch     string
	AutoBranch bool
}

// WorktreeMade is a worktree Worktrees.Add made.
type WorktreeMade struct {
	Path   string // the worktree: the new thread's workspace
	Repo   string // the workspace it was made from
	Branch string // the branch made, "" when detached
}
