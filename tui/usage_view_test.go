package tui

import (
	"strings"
	"testing"

	"github.com/nexus-tui/nexus/core"
)

// usageState is two threads whose runs reported usage: t1 priced, t2 by a
// provider that gives no price (cost unknown), on one day.
func usageState(t *testing.T) *journal {
	j := newJournal(t)
	j.thread("t1", "fix the parser", core.ThreadIdle, 1, 1*sec)
	j.thread("t2", "codex work", core.ThreadIdle, 1, 2*sec)
	j.usage("t1", 1, 1200, 300, 0.0123, false)
	j.usage("t2", 1, 20000, 5000, 0, true)
	return j
}

// usage records run n of a thread, completed, with the usage it reported,
// and adds it to the thread as the kernel does.
func (j *journal) usage(thread string, n, in, out int, cost float64, noCost bool) {
	r := j.run(thread, n, core.RunCompleted, "work", 3*sec, 4*sec)
	rc := *r
	rc.TokensIn, rc.TokensOut, rc.CostUSD, rc.NoCost = in, out, cost, noCost
	j.add(core.Event{Type: core.EvRunUpdated, Thread: thread, Run: r.ID, Payload: core.Payload{Run: &rc}})
	th := *j.st.Threads[thread]
	th.TokensIn, th.TokensOut, th.CostUSD, th.NoCost = th.TokensIn+in, th.TokensOut+out, th.CostUSD+cost, th.NoCost || noCost
	j.add(core.Event{Type: core.EvThreadUpdated, Thread: thread, Payload: core.Payload{Thread: &th}})
}

// TestUsageView: the cost key opens the cost view over any pane, with
// the sums per thread, provider and day that `nexus usage` prints; it
// follows new usage while open; esc closes it, and neither the key nor
// the view takes a printable key from the composer.
func TestUsageView(t *testing.T) {
	j := usageState(t)
	hs := newHarness(t, j.st, 120, 40)
	hs.typeText("dr")
	hs.press("alt+u")
	scr := hs.screen()
	for _, want := range []string{"Cost and tokens", "THREAD", "PROVIDER", "DAY (UTC)", "fix the parser", "$0.0123",
		"codex work", "unknown", "TOTAL", "$0.0123 + unknown", "21.2k", core.UsageDay(3 * sec)} {
		if !strings.Contains(scr, want) {
			t.Errorf("the cost view lacks %q:\n%s", want, scr)
		}
	}
	if got := hs.m.composer.value(); got != "dr" {
		t.Errorf("composer = %q after the cost key, want the draft \"dr\"", got)
	}

	// New usage arrives while it is open.
	from := len(j.events)
	j.usage("t1", 2, 100, 50, 1.5, false)
	hs.send(frameMsg{journal: j.events[from:]})
	if scr := hs.screen(); !strings.Contains(scr, "$1.51") || !strings.Contains(scr, "$1.51 + unknown") {
		t.Errorf("the cost view did not follow the new usage:\n%s", scr)
	}

	hs.press("esc")
	if len(hs.m.dialogs) != 0 || strings.Contains(hs.screen(), "Cost and tokens") {
		t.Fatalf("esc did not close the cost view")
	}
	hs.typeText("aft")
	if got := hs.m.composer.value(); got != "draft" {
		t.Errorf("composer = %q after closing the cost view, want \"draft\"", got)
	}
}

// A long thread title never cuts the cost column: the names give way.
func TestUsageViewKeepsTheCostColumn(t *testing.T) {
	j := usageState(t)
	th := *j.st.Threads["t1"]
	th.Title = strings.Repeat("a very long title ", 8)
	j.add(core.Event{Type: core.EvThreadUpdated, Thread: "t1", Payload: core.Payload{Thread: &th}})
	for _, w := range []int{100, 80} {
		hs := newHarness(t, j.st, w, 30)
		hs.press("alt+u")
		if scr := hs.screen(); !strings.Contains(scr, "$0.0123 + unknown") {
			t.Errorf("at %d columns the total's cost is cut:\n%s", w, scr)
		}
	}
}
