package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/core/api"
	"github.com/nexus-tui/nexus/internal/config"
	"github.com/nexus-tui/nexus/internal/host"
	"github.com/nexus-tui/nexus/providers/agentproc"
	"github.com/nexus-tui/nexus/store"
	"github.com/nexus-tui/nexus/store/natsjournal"
)

func (a *app) cmdServe(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	background := fs.Bool("background", false, "run as a background host: stay while clients or live work need it, then linger and exit (started by nexus itself)")
	readyFD := fs.Int("ready-fd", 0, "write \"ready\" to this inherited file descriptor once serving")
	takeOver := fs.Bool("take-over", false, "team mode: wait until the host that writes the project is gone, then take its threads")
	if _, err := parseArgs(fs, args, 0, 0, "nexus serve [--background] [--take-over]"); err != nil {
		return err
	}
	dir, err := a.resolveStateDir()
	if err != nil {
		return err
	}
	cfg, err := a.config()
	if err != nil {
		return err
	}
	linger := time.Duration(-1)
	if *background {
		if linger, err = a.hostLinger(); err != nil {
			return err
		}
		// Its own session already has no terminal; a stray SIGHUP from
		// the session that started it must not stop it either.
		signal.Ignore(syscall.SIGHUP)
	}
	h, err := host.Start(dir, time.Second, cfg, false)
	for said := false; *takeOver && errors.Is(err, natsjournal.ErrLeaseHeld); {
		if !said {
			fmt.Fprintf(a.stdout, "nexus: %v\nnexus: waiting to take over\n", err)
			said = true
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(time.Second):
		}
		h, err = host.Start(dir, time.Second, cfg, false)
	}
	if err != nil {
		return a.hostErr(ctx, dir, err)
	}
	// The connections the socket refuses (another user's; over its
	// limits) are told on stderr: host.log for a background host.
	logLine := func(line string) {
		fmt.Fprintf(a.stderr, "%s nexus: %s\n", time.Now().Format(time.RFC3339), line)
	}
	h.Server().SetLog(logLine)
	h.SetNotifyLog(logLine)
	if *background {
		h.SetBackground(linger)
		fmt.Fprintf(a.stdout, "%s nexus: background host serving %s (pid %d, linger %s)\n",
			time.Now().Format(time.RFC3339), dir, os.Getpid(), lingerString(linger))
	} else {
		fmt.Fprintf(a.stdout, "nexus: serving %s (pid %d); stop with SIGTERM\n", dir, os.Getpid())
	}
	if *readyFD > 0 {
		if f := os.NewFile(uintptr(*readyFD), "ready"); f != nil {
			fmt.Fprintln(f, "ready", os.Getpid())
			f.Close()
		}
	}
	if *background {
		serveBackground(ctx, h, linger)
	} else {
		select {
		case <-ctx.Done():
		case <-h.Dead():
		case <-h.StopRequested():
		}
	}
	lost := h.LeaseErr()
	h.Close()
	if err := h.Err(); err != nil {
		return failErr("the host stopped: its kernel failed: %v; run `nexus verify` on %s", err, dir)
	}
	if lost != nil {
		return failErr("the host stopped its agents: %v; another host may hold the project now", lost)
	}
	if *background {
		fmt.Fprintf(a.stdout, "%s nexus: background host %d stopped\n", time.Now().Format(time.RFC3339), os.Getpid())
	}
	return nil
}

// lingerString says a linger in words.
func lingerString(d time.Duration) string {
	if d < 0 {
		return "never"
	}
	return d.String()
}

// hostErr explains why this process could not become the host.
func (a *app) hostErr(ctx context.Context, dir string, err error) error {
	if errors.Is(err, natsjournal.ErrLeaseHeld) {
		return &exitError{code: ExitLocked, msg: err.Error()}
	}
	var le *store.LockedError
	if !errors.As(err, &le) {
		return journalErr(dir, err)
	}
	c, derr := api.Dial(ctx, filepath.Join(dir, host.SocketName), time.Second)
	if derr == nil {
		info := c.Info()
		c.Close()
		return &exitError{code: ExitLocked, msg: fmt.Sprintf("a host already serves %s (pid %d); use it, or stop it first with `nexus host stop`", dir, info.PID)}
	}
	if rerr := hostRefusal(derr); rerr != nil {
		return rerr
	}
	return &exitError{code: ExitLocked, msg: fmt.Sprintf("state dir %s is locked by process %d; stop it or use another --state-dir", dir, le.PID)}
}

// openStore opens the journal exclusively, for commands that read or
// rewrite the whole file and so cannot go through a host.
// runningHost is a client of the host serving dir, or nil when none
// answers.
func (a *app) runningHost(ctx context.Context, dir string) *api.Client {
	c, err := api.Dial(ctx, filepath.Join(dir, host.SocketName), time.Second)
	if err != nil {
		return nil
	}
	return c
}

func (a *app) openStore(ctx context.Context) (*store.Store, error) {
	return a.openStoreWith(ctx, store.Options{LockTimeout: time.Second})
}

func (a *app) openStoreWith(ctx context.Context, opts store.Options) (*store.Store, error) {
	dir, err := a.resolveStateDir()
	if err != nil {
		return nil, err
	}
	st, err := store.Open(dir, opts)
	if err != nil {
		return nil, a.hostErr(ctx, dir, err)
	}
	return st, nil
}

func (a *app) cmdVerify(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("verify", flag.ContinueOnError)
	repair := fs.Bool("repair", false, "rebuild the journal from its intact events (the original is kept aside)")
	if _, err := parseArgs(fs, args, 0, 0, "nexus verify [--repair]"); err != nil {
		return err
	}
	dir, err := a.resolveStateDir()
	if err != nil {
		return err
	}
	if *repair {
		res, err := store.Repair(ctx, dir, store.Options{LockTimeout: time.Second})
		if err != nil {
			return a.hostErr(ctx, dir, err)
		}
		if res.Backup == "" {
			fmt.Fprintf(a.stdout, "ok: %d events; nothing to repair\n", res.After.Events)
			return nil
		}
		fmt.Fprintln(a.stdout, repairSummary(res))
		return nil
	}
	var rep store.Report
	if c := a.runningHost(ctx, dir); c != nil {
		// A host holds the journal open: it verifies what it holds.
		defer c.Close()
		if err := c.HostVerify(ctx, &rep); err != nil {
			return err
		}
	} else {
		st, err := a.openStore(ctx)
		if err != nil {
			return err
		}
		defer st.Close()
		r, err := st.Verify(ctx)
		if err != nil {
			return err
		}
		rep = r
	}
	if !rep.OK {
		return damagedErr(filepath.Join(dir, store.JournalFile), rep.Reason)
	}
	fmt.Fprintf(a.stdout, "ok: %d events, seq gapless, hash chain valid, %d snapshot(s) equal to a full replay\n",
		rep.Events, len(rep.Snapshots))
	return nil
}

func (a *app) cmdExport(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("export", flag.ContinueOnError)
	pos, err := parseArgs(fs, args, 1, 1, "nexus export FILE")
	if err != nil {
		return err
	}
	dir, err := a.resolveStateDir()
	if err != nil {
		return err
	}
	if c := a.runningHost(ctx, dir); c != nil {
		defer c.Close()
		path, err := filepath.Abs(pos[0])
		if err != nil {
			return err
		}
		n, err := c.HostExport(ctx, path)
		if err != nil {
			return err
		}
		fmt.Fprintf(a.stdout, "exported %d events to %s\n", n, pos[0])
		return nil
	}
	st, err := a.openStore(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	f, err := os.OpenFile(pos[0], os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return failErr("cannot create %s: %v (export never overwrites a file)", pos[0], err)
	}
	if err := st.Export(ctx, f); err != nil {
		f.Close()
		os.Remove(pos[0])
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	fmt.Fprintf(a.stdout, "exported %d events to %s\n", st.Last(), pos[0])
	return f.Close()
}

func (a *app) cmdImport(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("import", flag.ContinueOnError)
	pos, err := parseArgs(fs, args, 1, 1, "nexus import FILE")
	if err != nil {
		return err
	}
	f, err := os.Open(pos[0])
	if err != nil {
		return failErr("cannot open %s: %v", pos[0], err)
	}
	defer f.Close()
	// Import fills a new journal, so it may make one where an earlier
	// journal left traces: that is how such a state dir is restored.
	st, err := a.openStoreWith(ctx, store.Options{LockTimeout: time.Second, AcceptEmpty: true})
	if err != nil {
		return err
	}
	defer st.Close()
	n, err := st.Import(ctx, f)
	if err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "imported %d events into %s\n", n, st.Dir())
	return nil
}

func (a *app) cmdProviders(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("providers", flag.ContinueOnError)
	check := fs.Bool("check", false, "also start each installed agent and run its protocol handshake")
	if _, err := parseArgs(fs, args, 0, 0, "nexus providers [--check]"); err != nil {
		return err
	}
	cfg, err := a.config()
	if err != nil {
		return err
	}
	reg := host.NewRegistry(nil, cfg)
	names := reg.Names()
	status := make([]string, len(names))
	var wg sync.WaitGroup
	for i, name := range names {
		p, _ := reg.Lookup(name)
		fp, inFile := cfg.Profile(name)
		wg.Add(1)
		go func() {
			defer wg.Done()
			if p.Kind == "builtin" {
				status[i] = "ready (built in)"
				return
			}
			var filep *config.Profile
			if inFile {
				filep = &fp
			}
			status[i] = profileStatus(host.AgentSpecFor(p.Name, p.Kind, filep), p.Kind, *check)
		}()
	}
	wg.Wait()
	tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "PROFILE\tKIND\tSOURCE\tSTATUS\tCAPABILITIES\tDESCRIPTION")
	for i, name := range names {
		p, _ := reg.Lookup(name)
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", p.Name, p.Kind, host.ProfileSource(name, cfg), status[i],
			capsString(p.Caps), p.Description)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	switch {
	case cfg.Path == "":
		fmt.Fprintln(a.stdout, "config file: none (set NEXUS_CONFIG, XDG_CONFIG_HOME or HOME)")
	case cfg.Found:
		fmt.Fprintf(a.stdout, "config file: %s\n", cfg.Path)
	default:
		fmt.Fprintf(a.stdout, "config file: %s (not found; ready-made profiles only)\n", cfg.Path)
	}
	return nil
}

// profileStatus says whether an external profile can run here: found on
// PATH, its version and, with check, whether its protocol handshake
// succeeds.
func profileStatus(c host.AgentSpec, kind string, check bool) string {
	if len(c.Command) == 0 {
		return "missing: no command; " + c.Install
	}
	path, err := exec.LookPath(c.Command[0])
	if err != nil {
		return fmt.Sprintf("missing: %s is not on PATH; %s", c.Command[0], c.Install)
	}
	st := "found " + path
	if kind == "shell" {
		return st
	}
	if v := agentproc.Version(path, 20*time.Second); v != "" {
		st += " (" + v + ")"
	}
	if !check || c.Check == nil {
		return st
	}
	dir, _ := os.Getwd()
	if err := c.Check(dir, 60*time.Second); err != nil {
		return st + "; handshake failed: " + err.Error()
	}
	return st + "; handshake ok"
}

func capsString(c core.Capabilities) string {
	var out []string
	for _, f := range []struct {
		on   bool
		name string
	}{{c.Steer, "steer"}, {c.Interrupt, "interrupt"}, {c.Resume, "resume"}, {c.Fork, "fork"},
		{c.Rollback, "rollback"}, {c.Approvals, "approvals"}, {c.UserInput, "questions"}, {c.Plans, "plans"},
		{c.Subagents, "subagents"}, {c.PTY, "pty"}} {
		if f.on {
			out = append(out, f.name)
		}
	}
	return strings.Join(out, ",")
}
