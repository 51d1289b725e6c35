package builtin

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/nexus-tui/nexus/internal/failpoint"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/providers/builtin/llm"
	"github.com/nexus-tui/nexus/workers"
	"github.com/zeebo/blake3"
)

// Executor runs worker steps; *workers.Pool implements it.
type Executor interface {
	Execute(ctx context.Context, st workers.Step, onCheckpoint func(workers.Checkpoint)) (workers.Result, error)
}

// maxToolResult caps what one step feeds back to the model (and journals).
const maxToolResult = 64 << 10

// errTurnGone means the kernel no longer records for this attempt.
var errTurnGone = errors.New("the turn is no longer current")

// outcome is what one step produced.
type outcome struct {
	result string // the tool result the model sees
	failed string // non-empty when the step failed: why, for the run's error
}

// actionKind is the approval kind of an action: reads are free.
func actionKind(name string) string {
	switch name {
	case workers.ActionWriteFile, workers.ActionEditFile:
		return "write"
	case workers.ActionRunCommand:
		return "command"
	}
	return ""
}

func hashHex(b []byte) string {
	h := blake3.Sum256(b)
	return hex.EncodeToString(h[:])
}

// writes is the file a write or edit step changes, relative to the
// workspace (the run's own change, which a rollback may undo); none for
// other steps.
func writes(c llm.ToolCall, workspace string) []string {
	if c.Name != workers.ActionWriteFile && c.Name != workers.ActionEditFile || c.Args["path"] == "" {
		return nil
	}
	p := c.Args["path"]
	if filepath.IsAbs(p) {
		rel, err := filepath.Rel(workspace, p)
		if err != nil {
			return nil
		}
		p = rel
	}
	return []string{filepath.ToSlash(filepath.Clean(p))}
}

func argsOf(c llm.ToolCall) workers.Args {
	return workers.Args{Path: c.Args["path"], Content: c.Args["content"], Old: c.Args["old"], New: c.Args["new"],
		Pattern: c.Args["pattern"], Command: c.Args["command"], Cwd: c.Args["cwd"]}
}

func describe(c llm.ToolCall) string {
	switch c.Name {
	case workers.ActionRunCommand:
		return fmt.Sprintf("run_command `%s`", c.Args["command"])
	case workers.ActionSearch:
		return fmt.Sprintf("search %q", c.Args["pattern"])
	}
	p := c.Args["path"]
	if p == "" {
		p = "."
	}
	return c.Name + " " + p
}

// readBytes reads a workspace file through a worker: its bytes, or ok
// false when it does not exist or cannot be read.
func (s *stepper) readBytes(ctx context.Context, path string) ([]byte, bool) {
	res, err := s.exec.Execute(ctx, workers.Step{Task: s.key + ":probe", N: 1, Action: workers.ActionReadFile,
		Args: workers.Args{Path: path}, Workspace: s.turn.Workspace}, nil)
	if err != nil || res.Status != workers.StatusOK {
		return nil, false
	}
	if res.Encoding == "base64" {
		b, err := base64.StdEncoding.DecodeString(res.Output)
		return b, err == nil
	}
	return []byte(res.Output), true
}

// stepper runs one tool call as a two-phase worker step.
type stepper struct {
	a    *Agent
	t    *turn
	turn *core.Turn
	exec Executor
	key  string // idempotency key
	call llm.ToolCall
	slow time.Duration
	obs  func(core.Observation)
	rec  func(core.Observation) error
	ask  askFunc
}

// run executes the step exactly once across crashes: a journaled result
// is reused; a started-but-unfinished step is redone if pure, reconciled
// by hash if it wrote a file, and put to the user if it ran a command.
func (s *stepper) run(ctx context.Context) (outcome, error) {
	c := s.call
	kind := actionKind(c.Name)
	class := workers.Class(c.Name)
	prev, seen := s.turn.Steps[s.key]
	if seen && prev.Status != core.EffStarted {
		return outcome{result: prev.Result, failed: failure(c, prev.Status, prev.Exit, prev.Result)}, nil
	}
	var hash, pre string
	if c.Name == workers.ActionWriteFile || c.Name == workers.ActionEditFile {
		cur, exists := s.readBytes(ctx, c.Args["path"])
		if exists {
			pre = hashHex(cur)
		}
		if c.Name == workers.ActionWriteFile {
			hash = hashHex([]byte(c.Args["content"]))
		} else if exists && strings.Count(string(cur), c.Args["old"]) == 1 {
			hash = hashHex([]byte(strings.Replace(string(cur), c.Args["old"], c.Args["new"], 1)))
		}
		if seen && prev.Hash != "" && pre == prev.Hash {
			out := toolResult(c, workers.Result{Status: workers.StatusOK}, prev.Hash)
			if err := s.rec(core.Observation{Kind: core.ObsStepDone, Key: s.key, EffectStatus: core.EffCompleted,
				Text: out, Hash: prev.Hash}); err != nil {
				return outcome{}, errTurnGone
			}
			return outcome{result: out}, nil
		}
		if seen && c.Name == workers.ActionEditFile && pre != prev.PreHash {
			return s.unknown(ctx, "the file changed and does not have the recorded result either")
		}
	}
	if seen && class == core.ClassIrreversible {
		return s.unknown(ctx, "it was interrupted by a restart, so whether it ran is unknown")
	}
	if kind != "" && !seen && !s.allowed(kind) {
		q, ok := s.ask("step:"+s.key, core.RequestApproval, kind, fmt.Sprintf("Allow %s?%s", describe(c), preview(c)))
		if !ok {
			return outcome{}, context.Canceled
		}
		if q.Response == core.RespDeny {
			return outcome{result: "denied by the user: " + describe(c) + " was not done"}, nil
		}
	}
	return s.execute(ctx, class, hash, pre)
}

func (s *stepper) allowed(kind string) bool { return s.turn.Policy.Allows(kind) }

// unknown asks the user whether to run a step again whose outcome the
// journal cannot tell.
func (s *stepper) unknown(ctx context.Context, why string) (outcome, error) {
	c := s.call
	q, ok := s.ask("unknown:"+s.key, core.RequestApproval, actionKind(c.Name),
		fmt.Sprintf("%s: %s. Allow runs it again; deny skips it.", describe(c), why))
	if !ok {
		return outcome{}, context.Canceled
	}
	if q.Response == core.RespDeny {
		out := "skipped by the user: " + describe(c) + " had an unknown outcome after a restart"
		if err := s.rec(core.Observation{Kind: core.ObsStepDone, Key: s.key, EffectStatus: core.EffUnknown, Text: out}); err != nil {
			return outcome{}, errTurnGone
		}
		return outcome{result: out}, nil
	}
	return s.execute(ctx, workers.Class(c.Name), "", "")
}

// execute journals the start, runs the step on a worker, journals the end.
func (s *stepper) execute(ctx context.Context, class core.EffectClass, hash, pre string) (outcome, error) {
	c := s.call
	start := core.Observation{Kind: core.ObsStepStarted, Key: s.key, Action: c.Name, Class: class,
		Title: describe(c), Hash: hash, PreHash: pre, Paths: writes(c, s.turn.Workspace)}
	if err := s.rec(start); err != nil {
		return outcome{}, errTurnGone
	}
	failpoint.Hit("step.started.after")
	if s.slow > 0 {
		select {
		case <-time.After(s.slow):
		case <-ctx.Done():
		}
	}
	res, err := s.exec.Execute(ctx, workers.Step{Task: s.key, N: 1, Action: c.Name, Args: argsOf(c),
		Workspace: s.turn.Workspace}, func(cp workers.Checkpoint) {
		if cp.Artifacts.Chunk != "" {
			s.obs(core.Observation{Kind: core.ObsText, Key: "step:" + s.key, Text: cp.Artifacts.Chunk, Urgent: true})
		}
	})
	if err != nil {
		res = workers.Result{Status: workers.StatusError, Error: err.Error()}
	}
	if ctx.Err() != nil && res.Status != workers.StatusOK {
		_ = s.rec(core.Observation{Kind: core.ObsStepDone, Key: s.key, EffectStatus: core.EffCancelled, Text: "cancelled: the turn was interrupted"})
		return outcome{}, context.Canceled
	}
	failpoint.Hit("step.done.before")
	out := toolResult(c, res, res.Blake3)
	status := core.EffCompleted
	exit := 0
	if res.ExitCode != nil {
		exit = *res.ExitCode
	}
	if res.Status != workers.StatusOK || exit != 0 {
		status = core.EffFailed
		if res.Status == workers.StatusRefused {
			status = core.EffRefused
		}
	}
	if err := s.rec(core.Observation{Kind: core.ObsStepDone, Key: s.key, EffectStatus: status, Text: out, Exit: exit,
		Hash: res.Blake3}); err != nil {
		return outcome{}, errTurnGone
	}
	return outcome{result: out, failed: failure(c, status, exit, out)}, nil
}

// toolResult is the text the model sees for a step. It is a pure function
// of the call and the result, so a reconciled step reads the same.
func toolResult(c llm.ToolCall, res workers.Result, hash string) string {
	var out string
	switch {
	case res.Status == workers.StatusRefused:
		out = "refused: " + res.Error
	case c.Name == workers.ActionRunCommand && res.ExitCode != nil:
		out = fmt.Sprintf("exit code %d\n%s", *res.ExitCode, res.Output)
	case res.Status != workers.StatusOK:
		out = "error: " + strings.TrimSpace(res.Error+" "+res.Output)
	case c.Name == workers.ActionWriteFile:
		out = fmt.Sprintf("wrote %d bytes to %s (blake3 %.12s)", len(c.Args["content"]), c.Args["path"], hash)
	case c.Name == workers.ActionEditFile:
		out = fmt.Sprintf("replaced 1 occurrence in %s (blake3 %.12s)", c.Args["path"], hash)
	default:
		out = res.Output
	}
	if len(out) > maxToolResult {
		out = out[:maxToolResult] + "\n[truncated]"
	}
	return out
}

// failure says why a step failed, or "" when it did not.
func failure(c llm.ToolCall, status core.EffectStatus, exit int, out string) string {
	switch {
	case status == core.EffCompleted || status == core.EffUnknown:
		return ""
	case c.Name == workers.ActionRunCommand && exit != 0:
		return fmt.Sprintf("%s exited with code %d", describe(c), exit)
	}
	return fmt.Sprintf("%s %s: %s", describe(c), status, firstLine(out))
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// preview shows what a write will do, for the approval prompt.
func preview(c llm.ToolCall) string {
	switch c.Name {
	case workers.ActionWriteFile:
		body := c.Args["content"]
		if len(body) > 200 {
			body = body[:200] + "…"
		}
		return fmt.Sprintf(" (%d bytes)\n%s", len(c.Args["content"]), body)
	case workers.ActionEditFile:
		return fmt.Sprintf("\n- %s\n+ %s", c.Args["old"], c.Args["new"])
	}
	return ""
}
