package cli

import (
	"cmp"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/core/api"
	"github.com/nexus-tui/nexus/store/natsjournal"
)

func (a *app) cmdThread(ctx context.Context, args []string) error {
	if len(args) == 0 {
		return usageErr("usage: nexus thread new|list|show|fork|archive|rename ...")
	}
	switch args[0] {
	case "new":
		return a.threadNew(ctx, args[1:])
	case "list":
		return a.threadList(ctx, args[1:])
	case "show":
		return a.threadShow(ctx, args[1:])
	case "fork":
		return a.threadFork(ctx, args[1:])
	case "archive":
		return a.threadArchive(ctx, args[1:])
	case "rename":
		fs := flag.NewFlagSet("rename", flag.ContinueOnError)
		pos, err := parseArgs(fs, args[1:], 2, 2, "nexus thread rename THREAD TITLE")
		if err != nil {
			return err
		}
		if pos[0], err = a.threadArg(ctx, pos[0]); err != nil {
			return err
		}
		return a.submitOnly(ctx, core.Command{Kind: core.CmdThreadRename, Thread: pos[0], Title: pos[1]})
	}
	return usageErr("unknown thread command %q: use new, list, show, fork, archive or rename", args[0])
}

// createThread resolves the provider profile and workspace at the edge and
// submits thread.create.
// threadOpts are the flags of a new thread.
type threadOpts struct {
	provider, workspace, title string
	budget                     float64
	maxTokens                  int
	yes                        bool
	worktree                   bool
	branch                     string
	// agent is the alias of the agent identity the thread starts as.
	agent string
}

func (o *threadOpts) flags(fs *flag.FlagSet) {
	fs.StringVar(&o.provider, "provider", "builtin", "provider profile")
	fs.StringVar(&o.workspace, "workspace", "", "workspace directory")
	fs.Float64Var(&o.budget, "budget-usd", 0, "hold the next turn (the built-in agent: the next model call) when it would pass this many US dollars")
	fs.IntVar(&o.maxTokens, "max-tokens", 0, "hold the next turn (the built-in agent: the next model call) when it would pass this many tokens")
	fs.BoolVar(&o.yes, "yes", false, "let the agent write files and run commands without asking")
}

// localWorkspace is a new thread's workspace on this machine: dir (else
// the current directory) made absolute and real, checked to be a
// directory.
func localWorkspace(dir string) (string, error) {
	if dir == "" {
		dir, _ = os.Getwd()
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", usageErr("workspace %q: %v", dir, err)
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		return "", usageErr("workspace %s is not a directory", abs)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	return abs, nil
}

func (a *app) createThread(ctx context.Context, s *session, o threadOpts) (*core.Receipt, error) {
	provider, workspace, title := o.provider, o.workspace, o.title
	reg, err := a.registry()
	if err != nil {
		return nil, err
	}
	prof, err := reg.Lookup(provider)
	if err != nil {
		return nil, usageErr("%v", err)
	}
	var abs string
	if _, remote := s.Backend.(*natsjournal.Remote); remote {
		if o.worktree {
			return nil, a.edgeRefused("--worktree")
		}
		st, err := s.State(ctx)
		if err != nil {
			return nil, err
		}
		if abs, err = a.remoteWorkspace(st, workspace); err != nil {
			return nil, err
		}
	} else if abs, err = localWorkspace(workspace); err != nil {
		return nil, err
	}
	if o.budget < 0 || o.maxTokens < 0 {
		return nil, usageErr("--budget-usd and --max-tokens must not be negative")
	}
	// The profile's budget is the default (budget_usd, max_tokens).
	o.budget, o.maxTokens = cmp.Or(o.budget, prof.BudgetUSD), cmp.Or(o.maxTokens, prof.MaxTokens)
	// The profile's approval policy is the default; --yes allows both.
	allow := prof.Allow
	if o.yes {
		allow = []string{"write", "command"}
	}
	cmd := core.Command{Kind: core.CmdThreadCreate, Provider: prof.Name, Caps: prof.Caps, NewThread: core.NewID("t"),
		Workspace: abs, Title: title, BudgetUSD: o.budget, MaxTokens: o.maxTokens, Allow: allow, Agent: o.agent}
	if o.branch != "" && !o.worktree {
		return nil, usageErr("--branch needs --worktree")
	}
	if o.worktree {
		w, err := a.worktrees()
		if err != nil {
			return nil, err
		}
		wt, err := w.add(ctx, cmd.NewThread, abs, "HEAD", o.branch)
		if err != nil {
			return nil, err
		}
		cmd.Workspace, cmd.Worktree, cmd.Repo, cmd.Branch = wt, wt, abs, o.branch
	}
	return a.submit(ctx, s, cmd)
}

func (a *app) threadNew(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("thread new", flag.ContinueOnError)
	var o threadOpts
	o.flags(fs)
	fs.StringVar(&o.title, "title", "", "title")
	fs.BoolVar(&o.worktree, "worktree", false, "give the thread its own git worktree of the workspace")
	fs.StringVar(&o.branch, "branch", "", "with --worktree: create this branch for it")
	fs.StringVar(&o.agent, "agent", "", "start the thread as this agent (nexus agent list): its profile and instructions")
	if _, err := parseArgs(fs, args, 0, 0, "nexus thread new [--agent A | --provider P] [--workspace DIR] [--title T] [--worktree [--branch B]] [--budget-usd X] [--max-tokens N] [--yes]"); err != nil {
		return err
	}
	s, err := a.connect(ctx)
	if err != nil {
		return err
	}
	defer s.stop()
	if err := a.asAgent(ctx, s, fs, &o); err != nil {
		return err
	}
	rec, err := a.createThread(ctx, s, o)
	if err != nil {
		return err
	}
	fmt.Fprintln(a.stdout, rec.Thread)
	s.linger(ctx)
	return nil
}

func (a *app) threadList(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("thread list", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "JSON output")
	all := fs.Bool("all", false, "include archived threads")
	if _, err := parseArgs(fs, args, 0, 0, "nexus thread list [--json] [--all]"); err != nil {
		return err
	}
	st, err := a.state(ctx, api.StateQuery{Brief: true})
	if err != nil {
		return err
	}
	type row struct {
		ID       string            `json:"id"`
		Title    string            `json:"title"`
		Provider string            `json:"provider"`
		Status   core.ThreadStatus `json:"status"`
		Runs     int               `json:"runs"`
		Pending  int               `json:"pendingRequests"`
	}
	rows := []row{}
	for _, th := range sortedThreads(st) {
		if th.Archived && !*all {
			continue
		}
		rows = append(rows, row{th.ID, th.Title, th.Provider, th.Status, th.Runs, pendingOf(st, th.ID)})
	}
	if *asJSON {
		return json.NewEncoder(a.rawStdout).Encode(rows)
	}
	tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tTITLE\tPROVIDER\tSTATUS\tRUNS\tPENDING")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%d\n", r.ID, r.Title, r.Provider, r.Status, r.Runs, r.Pending)
	}
	return tw.Flush()
}

func (a *app) threadShow(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("thread show", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "JSON output")
	pos, err := parseArgs(fs, args, 1, 1, "nexus thread show THREAD [--json]")
	if err != nil {
		return err
	}
	if pos[0], err = a.threadArg(ctx, pos[0]); err != nil {
		return err
	}
	st, err := a.state(ctx, api.StateQuery{Threads: []string{pos[0]}})
	if err != nil {
		return err
	}
	th := st.Threads[pos[0]]
	if th == nil {
		return failErr("unknown thread %q: list threads with `nexus thread list`", pos[0])
	}
	v := viewThread(st, th)
	if *asJSON {
		enc := json.NewEncoder(a.rawStdout)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	}
	fmt.Fprintf(a.stdout, "%s  %s  [%s]  %s\n", v.ID, v.Title, v.Provider, v.Status)
	if v.ForkedFrom != "" {
		fmt.Fprintf(a.stdout, "forked from %s at run %d\n", v.ForkedFrom, v.ForkRun)
	}
	if v.Agent != "" {
		fmt.Fprintf(a.stdout, "agent @%s (%s)\n", v.AgentAlias, v.Agent)
	}
	if v.Worktree != "" {
		fmt.Fprintf(a.stdout, "worktree %s (%s) of %s\n", v.Worktree, branchOrDetached(v.Branch), v.Repo)
	} else if v.Workspace != "" {
		fmt.Fprintf(a.stdout, "workspace %s\n", v.Workspace)
	}
	for _, r := range v.Runs {
		fmt.Fprintf(a.stdout, "\nrun %d  %s  (%d attempt(s))\n> %s\n", r.Ordinal, r.Status, len(r.Attempts), r.Text)
		for _, s := range r.Steers {
			fmt.Fprintf(a.stdout, "> (steer) %s\n", s)
		}
		if r.Reply != "" {
			fmt.Fprintf(a.stdout, "%s\n", r.Reply)
		}
		if r.Error != "" {
			fmt.Fprintf(a.stdout, "error: %s\n", r.Error)
		}
	}
	for _, q := range v.Requests {
		fmt.Fprintf(a.stdout, "\nrequest %s (%s, run %d) %s: %s\n", q.ID, q.Kind, q.Run, q.Status, q.Prompt)
	}
	for _, t := range v.Todos {
		fmt.Fprintf(a.stdout, "\ntodos of run %d:\n", t.Run)
		for _, it := range t.Items {
			fmt.Fprintf(a.stdout, "  [%s] %s\n", it.Status, it.Text)
		}
	}
	if len(v.Checkpoints) > 0 {
		fmt.Fprintf(a.stdout, "\ncheckpoints:\n")
	}
	for _, c := range v.Checkpoints {
		line := fmt.Sprintf("  %-14s %-6s %s", c.Scope, c.Status, shortCommit(c.Commit))
		if c.Node != "" {
			line += "  subagent " + c.Node
		}
		if n := len(c.Files) + c.MoreFiles; n > 0 {
			line += fmt.Sprintf("  %d file(s)", n)
		}
		if c.Reason != "" {
			line += "  " + c.Reason
		}
		fmt.Fprintln(a.stdout, line)
	}
	return nil
}

func (a *app) threadFork(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("thread fork", flag.ContinueOnError)
	run := fs.Int("run", 0, "run ordinal")
	title := fs.String("title", "", "title")
	worktree := fs.Bool("worktree", false, "give the fork its own git worktree at that run's checkpoint")
	branch := fs.String("branch", "", "with --worktree: create this branch for it")
	pos, err := parseArgs(fs, args, 1, 1, "nexus thread fork THREAD [--run N] [--worktree [--branch B]]")
	if err != nil {
		return err
	}
	if *branch != "" && !*worktree {
		return usageErr("--branch needs --worktree")
	}
	if *worktree {
		if err := a.edgeRefused("--worktree"); err != nil {
			return err
		}
	}
	if pos[0], err = a.threadArg(ctx, pos[0]); err != nil {
		return err
	}
	if *run < 0 {
		return usageErr("--run must be a run number, 1 or more")
	}
	s, err := a.connect(ctx)
	if err != nil {
		return err
	}
	defer s.stop()
	cmd := core.Command{Kind: core.CmdThreadFork, Thread: pos[0], Run: *run, Title: *title, Source: "run", NewThread: core.NewID("t")}
	if *worktree {
		st, err := s.stateOf(ctx, api.StateQuery{Brief: true})
		if err != nil {
			return err
		}
		src := st.Threads[pos[0]]
		if src == nil {
			return failErr("unknown thread %q: list threads with `nexus thread list`", pos[0])
		}
		commit, err := forkCommit(st, src, *run)
		if err != nil {
			return err
		}
		w, err := a.worktrees()
		if err != nil {
			return err
		}
		repo := forkRepo(src)
		if cmd.Worktree, err = w.add(ctx, cmd.NewThread, repo, commit, *branch); err != nil {
			return err
		}
		cmd.Repo, cmd.Branch = repo, *branch
	}
	rec, err := a.submit(ctx, s, cmd)
	if err != nil {
		return err
	}
	fmt.Fprintln(a.stdout, rec.Thread)
	return nil
}

// submitOnly connects, submits one command and reports a rejection.
func (a *app) submitOnly(ctx context.Context, cmd core.Command) error {
	s, err := a.connect(ctx)
	if err != nil {
		return err
	}
	defer s.stop()
	if _, err := a.submit(ctx, s, cmd); err != nil {
		return err
	}
	s.linger(ctx)
	return nil
}

// submit sends a command and turns a journaled rejection into exit 1.
func (a *app) submit(ctx context.Context, s *session, cmd core.Command) (*core.Receipt, error) {
	if cmd.ID == "" {
		cmd.ID = core.NewID("c") + strconv.FormatInt(time.Now().UnixNano()%1e6, 36)
	}
	rec, err := s.Submit(ctx, cmd)
	if err != nil {
		return nil, err
	}
	if rec.Reject != nil {
		return rec, failErr("%s refused (%s): %s", cmd.Kind, rec.Reject.Reason, rec.Reject.Detail)
	}
	return rec, nil
}

// state returns a consistent projection from the host. A host this
// invocation started stays open until the command returns: the state
// reads finished runs' sealed histories from its journal on demand. Such
// a host serves no other invocation (dialOrHost readOnly).
func (a *app) state(ctx context.Context, q api.StateQuery) (*core.State, error) {
	s, err := a.dialOrHost(ctx, true)
	if err != nil {
		return nil, err
	}
	a.atExit = append(a.atExit, s.stop)
	return s.stateOf(ctx, q)
}

// threadArchive archives a thread and removes its worktree, refusing when
// the worktree holds uncommitted work unless --force says to drop it.
func (a *app) threadArchive(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("thread archive", flag.ContinueOnError)
	force := fs.Bool("force", false, "remove the thread's worktree even with uncommitted work in it")
	pos, err := parseArgs(fs, args, 1, 1, "nexus thread archive THREAD [--force]")
	if err != nil {
		return err
	}
	s, _, th, err := a.connectThread(ctx, pos[0])
	if err != nil {
		return err
	}
	defer s.stop()
	pos[0] = th.ID
	var w *worktrees
	if th != nil && th.Worktree != "" {
		if w, err = a.worktrees(); err != nil {
			return err
		}
	}
	if w != nil && !*force {
		dirty, err := w.dirty(ctx, th)
		if err != nil {
			return failErr("cannot check the worktree %s: %v", th.Worktree, err)
		}
		if dirty {
			return failErr("the worktree %s of %s holds uncommitted work; commit it, or archive with --force to remove it anyway", th.Worktree, th.ID)
		}
	}
	if _, err := a.submit(ctx, s, core.Command{Kind: core.CmdThreadArchive, Thread: pos[0]}); err != nil {
		return err
	}
	if w != nil {
		if err := w.remove(ctx, th, *force); err != nil {
			return err
		}
		fmt.Fprintf(a.stdout, "removed worktree %s\n", th.Worktree)
	}
	return nil
}

// branchOrDetached names a worktree's branch for people.
func branchOrDetached(b string) string {
	if b == "" {
		return "detached HEAD"
	}
	return "branch " + b
}
