package agenttest

import (
	"path"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/providers/agentproc"
)

// CheckTurnObs asserts what every adapter promises about the
// observations of one turn, whatever its agent sent: each is stamped with
// the turn's thread, run and attempt; nothing follows turn.ended; every
// string is valid UTF-8 when the input was; plan statuses are the three
// nexus knows; a model call names its model in Model (a Title would be
// lost: the kernel records Model); usage is never negative nor past a few
// agentproc.MaxCount; a node names at most agentproc.MaxPaths written
// paths, each relative to the workspace, clean and inside it.
// Effect outcomes (answers to requests) are not part of the turn and are
// skipped. each then checks what the one adapter adds.
func CheckTurnObs(t testing.TB, e core.Effect, obs []core.Observation, validInput bool, each func(core.Observation)) {
	t.Helper()
	ended := false
	for _, o := range obs {
		if o.Kind == core.ObsEffectDone {
			continue
		}
		if ended {
			t.Fatalf("observation after turn.ended: %+v", o)
		}
		ended = o.Kind == core.ObsTurnEnded
		if o.Thread != e.Thread || o.Run != e.Run || o.Attempt != e.Attempt {
			t.Fatalf("observation not stamped with the attempt: %+v", o)
		}
		strs := []string{o.Key, o.Parent, o.Text, o.Title, o.Prompt, o.Error, o.Model}
		checkPaths(t, o)
		for _, it := range o.Items {
			strs = append(strs, it.Text)
			if it.Status != core.ItemPending && it.Status != core.ItemInProgress && it.Status != core.ItemCompleted && it.Status != core.ItemFailed {
				t.Fatalf("plan item status %q", it.Status)
			}
		}
		for _, x := range strs {
			if validInput && !utf8.ValidString(x) {
				t.Fatalf("%s %q: invalid UTF-8 from valid input in a string of %d bytes", o.Kind, o.Key, len(x))
			}
		}
		if o.Kind == core.ObsLLM && (o.Model == "" || o.Title != "") {
			t.Fatalf("a model call must name its model in Model, not Title: %+v", o)
		}
		if o.Kind == core.ObsLLM && (o.TokensIn < 0 || o.TokensOut < 0 || o.CostUSD < 0 || o.DurationMS < 0 ||
			o.TokensIn > 3*agentproc.MaxCount || o.TokensOut > 2*agentproc.MaxCount) {
			t.Fatalf("usage out of bounds: %+v", o)
		}
		each(o)
	}
}

// checkPaths asserts that the paths an observation names are ones the
// kernel records as they are: few, relative, clean, inside the workspace.
func checkPaths(t testing.TB, o core.Observation) {
	t.Helper()
	if len(o.Paths) > agentproc.MaxPaths {
		t.Fatalf("%s %q names %d paths, more than %d", o.Kind, o.Key, len(o.Paths), agentproc.MaxPaths)
	}
	for _, p := range o.Paths {
		if p == "" || path.IsAbs(p) || path.Clean(p) != p || p == ".." || strings.HasPrefix(p, "../") {
			t.Fatalf("%s %q names the path %q: not relative, clean and inside the workspace", o.Kind, o.Key, p)
		}
	}
}
