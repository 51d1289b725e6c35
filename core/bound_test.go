package core

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// A streamed reply of 3 MiB keeps its first MiB and says the rest was
// cut; a tool output sent whole keeps its head and tail and says how
// much went between; neither splits a UTF-8 sequence.
func TestNodeTextIsBounded(t *testing.T) {
	chunk := strings.Repeat("é", 1<<15) // 64 KiB of two-byte runes
	have, kept := 0, ""
	for i := 0; i < 48; i++ {
		d := boundDelta(have, "x"+chunk)
		kept += d
		have += len(d)
	}
	if len(kept) > MaxNodeText+len(cutNote) || !strings.HasSuffix(kept, cutNote) || !utf8.ValidString(kept) {
		t.Fatalf("streamed text kept %d bytes (valid %v), want at most %d ending with the cut note", len(kept), utf8.ValidString(kept), MaxNodeText+len(cutNote))
	}
	whole := "HEAD" + strings.Repeat("ü", 2<<20) + "TAIL"
	b := boundText(whole)
	if len(b) > MaxNodeText+64 || !strings.HasPrefix(b, "HEAD") || !strings.HasSuffix(b, "TAIL") || !strings.Contains(b, "bytes cut") || !utf8.ValidString(b) {
		t.Fatalf("whole text bounded to %d bytes, head %q tail %q", len(b), b[:8], b[len(b)-8:])
	}
	if boundText("short") != "short" || boundDelta(0, "short") != "short" {
		t.Fatal("a short text was changed")
	}
}

// Through the kernel: a 3 MiB reply streamed in deltas leaves at most
// MaxNodeText (and the note) in the node and in the journal's events.
func TestKernelBoundsAReply(t *testing.T) {
	k := NewKernel(nil)
	step := func(in Input) []Event {
		t.Helper()
		if _, err := k.Step(in); err != nil {
			t.Fatal(err)
		}
		evs := k.Ready().Events
		k.Advance()
		return evs
	}
	step(Input{Command: &Command{ID: "c1", Kind: CmdThreadCreate, NewThread: "t1", Provider: "builtin", At: 1}})
	step(Input{Command: &Command{ID: "c2", Kind: CmdMessageSend, Thread: "t1", Text: "talk a lot", At: 2}})
	st := k.State()
	r := st.ActiveRun("t1")
	a := st.CurrentAttempt(r)
	journaled := 0
	delta := strings.Repeat("word ", 1<<14) // 80 KiB
	for i := 0; i < 40; i++ {
		for _, ev := range step(Input{Obs: &Observation{Kind: ObsText, Thread: "t1", Run: r.ID, Attempt: a.ID, Key: "reply",
			Text: delta, At: int64(3 + i)}}) {
			journaled += len(ev.Payload.Text)
		}
	}
	n := k.State().NodeByKey(a.ID, "reply")
	if n == nil || len(n.Text) > MaxNodeText+len(cutNote) || !strings.HasSuffix(n.Text, cutNote) {
		t.Fatalf("the node holds %d bytes; want at most %d ending with the cut note", len(n.Text), MaxNodeText+len(cutNote))
	}
	if journaled > MaxNodeText+len(cutNote) {
		t.Fatalf("%d bytes of text journaled for a node that keeps %d", journaled, MaxNodeText)
	}
}
