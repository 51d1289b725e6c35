package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"sync/atomic"
	"time"

	"github.com/charmbracelet/x/term"
	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/core/api"
	"github.com/nexus-tui/nexus/internal/config"
	"github.com/nexus-tui/nexus/internal/host"
	"github.com/nexus-tui/nexus/providers"
	"github.com/nexus-tui/nexus/store/natsjournal"
	"github.com/nexus-tui/nexus/themes"
	"github.com/nexus-tui/nexus/tui"
)

// cmdTUI opens the full-screen UI: as the host when no process owns the
// state dir (quitting stops the host and its agents), else as a client of
// the running host (quitting leaves the host and its agents running).
func (a *app) cmdTUI(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("tui", flag.ContinueOnError)
	if _, err := parseArgs(fs, args, 0, 0, "nexus [--theme dark|light|high-contrast|none] [tui]"); err != nil {
		return err
	}
	cfg, err := a.config()
	if err != nil {
		return err
	}
	theme := tuiTheme(a.theme, cfg)
	if _, err := themes.Resolve(theme, os.Getenv); err != nil {
		return usageErr("%v", err)
	}
	in, inOK := a.stdin.(*os.File)
	out, outOK := a.rawStdout.(*os.File)
	if !inOK || !outOK || !term.IsTerminal(in.Fd()) || !term.IsTerminal(out.Fd()) {
		return usageErr("the full-screen UI needs a terminal; from scripts use the subcommands (nexus --help)")
	}
	thread := ""
	for {
		err := a.tuiOnce(ctx, in, out, theme, cfg, thread)
		var sw *tui.SwitchProject
		if !errors.As(err, &sw) {
			return err
		}
		// The team dialog opened another project: this box's own goes
		// to its host (terminals, diffs), any other through the hub.
		a.project, thread = sw.Project, sw.Thread
		if cfg.Team != nil && sw.Project == cfg.Team.Project {
			a.project = ""
		}
	}
}

// tuiOnce runs the UI on one project until it quits or opens another
// (*tui.SwitchProject). thread is selected at start ("" : the latest).
func (a *app) tuiOnce(ctx context.Context, in, out *os.File, theme string, cfg *config.Config, thread string) error {
	s, err := a.connect(ctx)
	if err != nil {
		return err
	}
	if s.host != nil {
		// Quitting the UI host stops it at once, clients or not (the
		// quit dialog says so when runs are active).
		defer s.host.Close()
	} else {
		defer s.stop()
	}
	label := "host"
	project := a.project
	if project == "" && cfg.Team != nil {
		project = cfg.Team.Project
	}
	var liveTerms func() int
	if s.host != nil {
		liveTerms = func() int {
			lctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
			defer cancel()
			l, err := s.host.Live(lctx)
			if err != nil {
				return 0
			}
			return l.Terminals
		}
	}
	var labelNow func() string
	var labelChanged <-chan struct{}
	var stopHost func(context.Context) error
	client, _ := s.Backend.(*api.Client)
	remote, _ := s.Backend.(*natsjournal.Remote)
	if remote != nil {
		label = "hub: " + a.project
		wctx, stopWatch := context.WithCancel(ctx)
		defer stopWatch()
		labelNow, labelChanged = ownerLabel(wctx, remote, label)
	} else if s.host == nil {
		label = "client"
		if client != nil {
			labelNow = func() string { return fmt.Sprintf("client of pid %d", client.Info().PID) }
			stopHost = func(ctx context.Context) error {
				client.SetRestart(nil) // the UI is quitting: no next host
				return client.StopHost(ctx, true)
			}
			if mode, _ := a.hostMode(); mode == "background" {
				// A UI that outlives its host (killed, or stopped from
				// another terminal) starts the next one and goes on.
				client.SetRestart(func(ctx context.Context) error { return a.startBackground(ctx, s.dir) })
			}
		}
	}
	ws, _ := os.Getwd()
	var uiWorktrees *tui.Worktrees
	if remote != nil {
		// A new thread works on the host's machine: in the project's
		// latest thread's workspace unless the person writes another
		// path there; no worktree is made from here (edge.go).
		ws = ""
		if st, err := remote.State(ctx); err == nil {
			ws = latestWorkspace(st)
		}
	} else {
		wts, err := a.worktrees()
		if err != nil {
			return err
		}
		uiWorktrees = tuiWorktrees(s.Backend, wts)
	}
	// s.Backend, not s: it is what implements core.Terminals too (the
	// host's hostBackend or an api.Client), which the UI type-asserts.
	err = tui.Run(ctx, s.Backend, tui.Options{Theme: theme, StateDir: s.dir, HostLabel: label, HostLabelNow: labelNow,
		HostLabelChanged: labelChanged, Remote: remote != nil,
		Host: s.host != nil, LiveTerminals: liveTerms, StopHost: stopHost, Profiles: tuiProfiles(host.NewRegistry(nil, cfg)), Workspace: ws,
		Diff: tuiDiff(s.Backend, s.dir), Worktrees: uiWorktrees, Scrollback: tuiScrollback(cfg), Notify: tuiNotify(cfg), IO: tui.IO{Input: in, Output: out},
		Team: a.tuiTeam(cfg), Project: project, Thread: thread})
	if client != nil && err == nil {
		// Back on the plain terminal: say what keeps running.
		sctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		if st, serr := client.HostStatus(sctx); serr == nil && st.Live.Any() {
			verb, them := "keep", "them"
			if l := st.Live; l.Runs+l.Requests+l.Terminals+l.Missions+l.Schedules == 1 {
				verb, them = "keeps", "it"
			}
			fmt.Fprintf(a.stdout, "nexus: %s %s running in the background host (pid %d); run nexus to come back, nexus host stop to end %s\n",
				st.Live, verb, st.PID, them)
		}
	}
	return err
}

// tuiDiff is the UI's diff view source: what `nexus diff T --run N`
// prints (diffOn). The UI calls it off its event loop.
func tuiDiff(b core.Backend, stateDir string) func(ctx context.Context, thread string, run int) (string, error) {
	return func(ctx context.Context, thread string, run int) (string, error) {
		return diffOn(ctx, b, nil, stateDir, host.DiffQuery{Thread: thread, Run: run})
	}
}

// tuiTheme is the theme the UI asks for: --theme, else the config file's,
// else "" (dark). themes.Resolve then applies NO_COLOR, which wins over
// both (themes/doc.go).
func tuiTheme(flag string, cfg *config.Config) string {
	if flag != "" || cfg == nil {
		return flag
	}
	return cfg.Theme
}

// tuiScrollback is how many lines a terminal pane keeps, as
// tui.Options.Scrollback takes it: the file's [ui] scrollback (0 there
// keeps none), else 0, the UI's default.
func tuiScrollback(cfg *config.Config) int {
	switch {
	case cfg == nil || cfg.UIScrollback == nil:
		return 0
	case *cfg.UIScrollback == 0:
		return -1
	}
	return *cfg.UIScrollback
}

// tuiProfiles are the profiles the new-thread dialog offers, with their
// approval policy as the new thread's allow list.
func tuiProfiles(reg *providers.Registry) []tui.Profile {
	var out []tui.Profile
	for _, name := range reg.Names() {
		p, _ := reg.Lookup(name)
		out = append(out, tui.Profile{Name: p.Name, Description: p.Description, Caps: p.Caps, Allow: p.Allow,
			BudgetUSD: p.BudgetUSD, MaxTokens: p.MaxTokens})
	}
	return out
}

// ownerLabel is the status line's label of a UI on a hub project: the
// project and the host holding it ("box:/state (pid 42)"), or "no owner"
// while none does (its commands wait on the hub). It follows the
// project's lease (natsjournal.WatchOwner) until ctx ends; the label is
// read at each frame and never blocks, and changed ticks when it changes.
func ownerLabel(ctx context.Context, r *natsjournal.Remote, label string) (now func() string, changed <-chan struct{}) {
	var owner atomic.Pointer[string]
	tick := make(chan struct{}, 1)
	if owners, err := r.WatchOwner(ctx); err == nil {
		go func() {
			for o := range owners {
				owner.Store(&o)
				select {
				case tick <- struct{}{}:
				default: // a frame is on its way already
				}
			}
		}()
	}
	return func() string {
		switch o := owner.Load(); {
		case o == nil:
			return label
		case *o == "":
			return label + " · no owner: commands wait"
		default:
			return label + " · " + natsjournal.HolderName(*o)
		}
	}, tick
}
