package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/charmbracelet/x/term"
	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/internal/config"
	"github.com/nexus-tui/nexus/internal/host"
	"github.com/nexus-tui/nexus/internal/textsafe"
)

// Exit codes of every command (the contract scripts rely on).
const (
	ExitOK      = 0
	ExitFailed  = 1
	ExitUsage   = 2
	ExitWaiting = 3
	ExitLocked  = 4
)

// exitError carries an exit code and a one-line message for stderr.
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

func usageErr(format string, args ...any) error {
	return &exitError{code: ExitUsage, msg: fmt.Sprintf(format, args...)}
}

func failErr(format string, args ...any) error {
	return &exitError{code: ExitFailed, msg: fmt.Sprintf(format, args...)}
}

type app struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	// rawStdout is stdout as given: --json output and the UI use it.
	// stdout and stderr clean agent text (textsafe) when they are a
	// terminal.
	rawStdout io.Writer
	stateDir  string
	theme     string
	// project (--project) makes this invocation a client of that project
	// on the hub ([team]) instead of this state dir's host.
	project string
	// cfg is the config file, read on first need (app.config).
	cfg *config.Config
	// atExit runs when the command has returned (its output written), in
	// reverse order: a.state keeps its host open until then, so sealed
	// run histories can still be read from the journal.
	atExit []func()
}

const usageText = `usage: nexus [--state-dir DIR] [--project P] [--theme dark|light|high-contrast|none] [COMMAND]

commands:
  (none) | tui          full-screen UI
  serve                 host with no UI until SIGTERM (nexus starts a background one itself)
  host status|stop      the background host: what it runs; stop it [--force]
  thread new|list|show|fork|archive|rename
  agent add|list|show|remove   agent identities: alias, profile, instructions
  mission new GOAL [--strategy split|race] [--agents A,B] [--verify CMD] [--reviewer A] [--yes] [--wait]
  mission list|show|approve|stop|resume|vote|rollback [--json]   goals across several agents
  schedule add SPEC THREAD|mission TEXT   a message, or a mission (its flags), every D or on a cron spec (UTC)
  schedule list [--json] | schedule remove SCHEDULE
  send THREAD TEXT [--mode auto|steer|restart|queue]
  queue THREAD list|hold|release|remove [RUN]
  interrupt THREAD [--hold-queue]
  requests [THREAD] [--json]
  respond REQUEST --allow|--allow-always|--deny|--answer TEXT [--no-wait]
  run TEXT [--provider P] [--workspace DIR] [--json]   (run --mission GOAL [mission flags]: mission new --wait)
  resume [THREAD]
  rollback THREAD --to-run N | --to-node NODE | --to-checkpoint CP
  checkpoint THREAD     mark the workspace of an idle thread
  diff THREAD [--run N | --from CP --to CP] [--stat]
  log [THREAD] [--json] [--follow]
  verify [--repair]
  export FILE | import FILE
  providers
  notify test           a notification of each configured kind (bell, desktop, title, command)
  usage [--json] [--since 7d|DAY|TIME]   tokens and cost per thread, provider, day
  budget THREAD [--usd X] [--max-tokens N] | budget --daily [--usd X]
  hub [--listen HOST:PORT] [--cluster NAME ...]   team mode's server (NATS JetStream) until SIGTERM
  team [--json]         the hub's projects by host, with their threads (--project P: any command on P through the hub)
  version`

func (a *app) main(ctx context.Context, args []string) int {
	err := a.dispatch(ctx, args)
	for i := len(a.atExit) - 1; i >= 0; i-- {
		a.atExit[i]()
	}
	a.atExit = nil
	return a.exit(err)
}

// exit prints err as one line on stderr, if it says anything, and
// returns the exit code it stands for.
func (a *app) exit(err error) int {
	if err == nil {
		return ExitOK
	}
	if errors.Is(err, context.Canceled) {
		return ExitOK
	}
	var h *helpText
	if errors.As(err, &h) {
		fmt.Fprint(a.stdout, h.text)
		return ExitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.msg != "" {
			fmt.Fprintf(a.stderr, "nexus: %s\n", oneLine(ee.msg))
		}
		return ee.code
	}
	var ie *core.InputError
	if errors.As(err, &ie) {
		fmt.Fprintf(a.stderr, "nexus: %s\n", oneLine(ie.Msg))
		return ExitFailed
	}
	fmt.Fprintf(a.stderr, "nexus: %s\n", oneLine(err.Error()))
	return ExitFailed
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

func (a *app) dispatch(ctx context.Context, args []string) error {
	global := flag.NewFlagSet("nexus", flag.ContinueOnError)
	global.SetOutput(io.Discard)
	global.StringVar(&a.stateDir, "state-dir", "", "state directory")
	global.StringVar(&a.theme, "theme", "", "colour theme")
	global.StringVar(&a.project, "project", "", "a project on the hub ([team]) to reach instead of this state dir's host")
	help := global.Bool("help", false, "help")
	global.BoolVar(help, "h", false, "help")
	version := global.Bool("version", false, "print the version")
	if err := global.Parse(args); err != nil {
		return usageErr("%v; run nexus --help", err)
	}
	if *help {
		fmt.Fprintln(a.stdout, usageText)
		return nil
	}
	if *version {
		fmt.Fprintf(a.stdout, "nexus %s\n", host.Version)
		return nil
	}
	args = global.Args()
	cmd := "tui"
	if len(args) > 0 {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "tui":
		return a.cmdTUI(ctx, args)
	case "serve":
		return a.cmdServe(ctx, args)
	case "host":
		return a.cmdHost(ctx, args)
	case "thread":
		return a.cmdThread(ctx, args)
	case "agent":
		return a.cmdAgent(ctx, args)
	case "mission":
		return a.cmdMission(ctx, args)
	case "schedule":
		return a.cmdSchedule(ctx, args)
	case "send":
		return a.cmdSend(ctx, args)
	case "queue":
		return a.cmdQueue(ctx, args)
	case "interrupt":
		return a.cmdInterrupt(ctx, args)
	case "requests":
		return a.cmdRequests(ctx, args)
	case "respond":
		return a.cmdRespond(ctx, args)
	case "run":
		return a.cmdRun(ctx, args)
	case "resume":
		return a.cmdResume(ctx, args)
	case "log":
		return a.cmdLog(ctx, args)
	case "rollback":
		return a.cmdRollback(ctx, args)
	case "checkpoint":
		return a.cmdCheckpoint(ctx, args)
	case "diff":
		return a.cmdDiff(ctx, args)
	case "verify":
		return a.cmdVerify(ctx, args)
	case "export":
		return a.cmdExport(ctx, args)
	case "import":
		return a.cmdImport(ctx, args)
	case "providers":
		return a.cmdProviders(ctx, args)
	case "notify":
		return a.cmdNotify(ctx, args)
	case "usage":
		return a.cmdUsage(ctx, args)
	case "budget":
		return a.cmdBudget(ctx, args)
	case "hub":
		return a.cmdHub(ctx, args)
	case "team":
		return a.cmdTeam(ctx, args)
	case "worker":
		return a.cmdWorker(ctx, args)
	case "version":
		fmt.Fprintf(a.stdout, "nexus %s\n", host.Version)
		return nil
	case "help":
		fmt.Fprintln(a.stdout, usageText)
		return nil
	}
	return usageErr("unknown command %q; run nexus --help", cmd)
}

// parseArgs parses flags that may come before, between or after the
// positional arguments, and checks the positional count.
// helpText is a command's --help: its usage and flags, printed on stdout
// with exit 0.
type helpText struct{ text string }

func (h *helpText) Error() string { return h.text }

func parseArgs(fs *flag.FlagSet, args []string, minPos, maxPos int, usage string) ([]string, error) {
	fs.SetOutput(io.Discard)
	var pos []string
	for {
		if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
			var b strings.Builder
			fmt.Fprintf(&b, "usage: %s\n", usage)
			fs.SetOutput(&b)
			fs.PrintDefaults()
			return nil, &helpText{text: b.String()}
		} else if err != nil {
			return nil, usageErr("%v; usage: %s", err, usage)
		}
		rest := fs.Args()
		if n := len(args) - len(rest); n > 0 && args[n-1] == "--" {
			// Parse stopped at "--", which ends the flags: the rest is
			// positional as it is, even words that look like flags.
			pos = append(pos, rest...)
			break
		}
		if len(rest) == 0 {
			break
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
	if len(pos) < minPos || (maxPos >= 0 && len(pos) > maxPos) {
		return nil, usageErr("wrong number of arguments; usage: %s", usage)
	}
	return pos, nil
}

// resolveStateDir applies --state-dir, NEXUS_STATE_DIR, XDG_STATE_HOME and
// the home default, in that order.
func (a *app) resolveStateDir() (string, error) {
	dir := a.stateDir
	if dir == "" {
		dir = os.Getenv("NEXUS_STATE_DIR")
	}
	if dir == "" {
		if x := os.Getenv("XDG_STATE_HOME"); x != "" {
			dir = x + "/nexus"
		}
	}
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", failErr("cannot find a state dir: set --state-dir or NEXUS_STATE_DIR")
		}
		dir = home + "/.local/state/nexus"
	}
	return dir, nil
}

// Run executes one nexus invocation with its arguments (without the
// program name) and returns its exit code.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	a := &app{stdin: stdin, stdout: stdout, stderr: stderr, rawStdout: stdout}
	if isTerminal(stdout) {
		a.stdout = textsafe.Writer{W: stdout}
	}
	if isTerminal(stderr) {
		a.stderr = textsafe.Writer{W: stderr}
	}
	return a.main(ctx, args)
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(f.Fd())
}
