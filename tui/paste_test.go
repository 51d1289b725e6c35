package tui

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/nexus-tui/nexus/core"
)

// manyLines is n lines of text with tabs and non-ASCII in them, as code
// pasted from an editor has, each line ending in a newline.
func manyLines(n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString("\tline " + itoa(i) + ": naïve café → ok\n")
	}
	return b.String()
}

// A bracketed paste of 400 lines shows as one token and a line count;
// enter sends exactly what was pasted.
func TestLargePasteFoldsIntoAToken(t *testing.T) {
	hs := newHarness(t, demoState(t), 120, 40)
	// t1 waits on an approval: alt+m sets it aside to write to the run.
	hs.press("alt+m")
	text := manyLines(400)
	hs.send(tea.PasteMsg{Content: text})
	tok := "[pasted 400 lines · " + sizeLabel(len(text)) + "]"
	if got := hs.m.composer.ta.Value(); got != tok {
		t.Fatalf("the composer's input holds %q, want the token %q", trunc(got, 80), tok)
	}
	scr := hs.screen()
	for _, want := range []string{tok, "400 lines · " + sizeLabel(len(text)) + " ─╮"} {
		if !strings.Contains(scr, want) {
			t.Errorf("the screen does not show %q:\n%s", want, scr)
		}
	}
	hs.checkScreen(120, 40)
	hs.press("enter")
	if c := hs.lastCmd(); c.Text != text {
		t.Errorf("sent %d bytes that differ from the %d-byte paste", len(c.Text), len(text))
	}
	if !hs.m.composer.empty() {
		t.Errorf("the composer still holds %q after the send", hs.m.composer.ta.Value())
	}
}

// Typed text around a token is kept in place, and the paste's line
// breaks arrive as LF whatever the terminal sent.
func TestPasteBetweenTypedText(t *testing.T) {
	hs := newHarness(t, demoState(t), 120, 40)
	hs.typeText("look: ")
	hs.send(tea.PasteMsg{Content: strings.ReplaceAll(manyLines(30), "\n", "\r")}) // tmux sends CR
	hs.typeText(" thanks")
	if got, want := hs.m.composer.value(), "look: "+manyLines(30)+" thanks"; got != want {
		t.Fatalf("the draft is %q, want %q", trunc(got, 120), trunc(want, 120))
	}
	// The cursor steps over the token in one move: left twice from the
	// end of "thanks" minus its word puts it before the token.
	hs.press("alt+left", "left", "left")
	hs.typeText("X")
	if got, want := hs.m.composer.value(), "look: X"+manyLines(30)+" thanks"; got != want {
		t.Errorf("typing after moving left over the token gave %q, want %q", trunc(got, 120), trunc(want, 120))
	}
}

// Backspace right after a token removes the whole paste; so do delete
// before it and a word deletion that reaches into it.
func TestBackspaceRemovesTheWholePaste(t *testing.T) {
	for _, tc := range []struct {
		name string
		keys []string
		want string
	}{
		{"backspace after it", []string{"backspace"}, "see: "},
		{"delete word after it", []string{"alt+backspace"}, "see: "},
		{"delete before it", []string{"left", "delete"}, "see: "},
		{"typed text then backspace", []string{"x", "backspace", "backspace"}, "see: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hs := newHarness(t, demoState(t), 120, 40)
			hs.typeText("see: ")
			hs.send(tea.PasteMsg{Content: manyLines(50)})
			for _, k := range tc.keys {
				if k == "delete" {
					hs.send(tea.KeyPressMsg{Code: tea.KeyDelete})
					continue
				}
				hs.press(k)
			}
			if got := hs.m.composer.value(); got != tc.want || len(hs.m.composer.blocks) != 0 {
				t.Errorf("the draft is %q with %d pastes, want %q and none", trunc(got, 80), len(hs.m.composer.blocks), tc.want)
			}
		})
	}
}

// A small paste is typed into the input as it always was; a CR LF line
// break in it is one line break.
func TestSmallPasteIsTyped(t *testing.T) {
	hs := newHarness(t, demoState(t), 120, 40)
	hs.send(tea.PasteMsg{Content: "one\r\ntwo\r\nthree"})
	if got := hs.m.composer.ta.Value(); got != "one\ntwo\nthree" || len(hs.m.composer.blocks) != 0 {
		t.Errorf("a 3-line paste gave the input %q and %d tokens", got, len(hs.m.composer.blocks))
	}
}

// The composer's edge counts the draft's lines once there is more than
// one, pastes included.
func TestComposerShowsItsLineCount(t *testing.T) {
	hs := newHarness(t, demoState(t), 120, 40)
	hs.typeText("one line")
	if strings.Contains(hs.screen(), "1 line") {
		t.Errorf("a one-line draft shows a line count:\n%s", hs.screen())
	}
	for _, l := range []string{"two", "three"} {
		hs.press("ctrl+j")
		hs.typeText(l)
	}
	if !strings.Contains(hs.screen(), " 3 lines ─╮") {
		t.Errorf("a 3-line draft does not say so on the composer's edge:\n%s", hs.screen())
	}
	hs.press("ctrl+j")
	hs.send(tea.PasteMsg{Content: manyLines(400)})
	size := sizeLabel(len(hs.m.composer.value()))
	if want := " 403 lines · " + size + " ─╮"; !strings.Contains(hs.screen(), want) {
		t.Errorf("the edge does not show %q:\n%s", want, hs.screen())
	}
	hs.checkSizes(resizeSizes)
}

// ctrl+u clears the whole draft, pastes and all; up brings it back.
func TestClearDraftKey(t *testing.T) {
	hs := newHarness(t, demoState(t), 120, 40)
	hs.typeText("first ")
	hs.send(tea.PasteMsg{Content: manyLines(40)})
	hs.press("ctrl+j")
	hs.typeText("last line")
	want := hs.m.composer.value()
	hs.press("ctrl+u")
	if !hs.m.composer.empty() || hs.quit {
		t.Fatalf("ctrl+u left %q in the composer (quit %v)", hs.m.composer.value(), hs.quit)
	}
	if !strings.Contains(hs.screen(), "draft cleared") {
		t.Errorf("ctrl+u does not say the draft was cleared:\n%s", hs.screen())
	}
	hs.press("up")
	if got := hs.m.composer.value(); got != want || len(hs.m.composer.blocks) != 1 {
		t.Errorf("up after ctrl+u brought back %q with %d tokens, want the draft with its paste folded",
			trunc(got, 80), len(hs.m.composer.blocks))
	}
}

// validatingBackend refuses commands as the host's edge does.
type validatingBackend struct{ *stubBackend }

func (v validatingBackend) Submit(ctx context.Context, cmd core.Command) (*core.Receipt, error) {
	if err := cmd.Validate(); err != nil {
		return nil, err
	}
	return v.stubBackend.Submit(ctx, cmd)
}

// A draft over the message limit is refused with the host's error and
// comes back into the composer, its paste folded.
func TestTooLargeDraftStaysInTheComposer(t *testing.T) {
	b := newStub()
	hs := newHarnessOn(t, b, validatingBackend{b}, demoState(t), 120, 40)
	// t1 waits on an approval: alt+m sets it aside to write to the run.
	hs.press("alt+m")
	text := bigPaste(core.MaxTextBytes + 1000)
	hs.typeText("please read ")
	hs.send(tea.PasteMsg{Content: text})
	hs.press("enter")
	if scr := hs.screen(); !strings.Contains(scr, "sending refused") || !strings.Contains(scr, "over the limit") {
		t.Errorf("the status line does not say why the send was refused:\n%s", scr)
	}
	if got := hs.m.composer.value(); got != "please read "+text || len(hs.m.composer.blocks) != 1 {
		t.Errorf("after the refusal the composer holds %d bytes in %d tokens, want the draft back folded", len(got), len(hs.m.composer.blocks))
	}
}

// A draft with a paste is kept in tui.json with the paste expanded, and
// comes back folded after a restart.
func TestDraftWithPasteSurvivesARestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), prefsFile)
	hs := newHarness(t, demoState(t), 120, 40)
	thread := hs.m.selected
	text := manyLines(300)
	hs.typeText("about this: ")
	hs.send(tea.PasteMsg{Content: text})
	hs.m.keepDraft()
	if err := writePrefs(path, hs.m.prefs); err != nil {
		t.Fatal(err)
	}
	p, err := loadPrefs(path)
	if err != nil {
		t.Fatal(err)
	}
	if p.Drafts[thread] != "about this: "+text {
		t.Errorf("tui.json keeps %d bytes for the draft, want the expanded text", len(p.Drafts[thread]))
	}
	hs2 := newHarness(t, nil, 120, 40)
	hs2.m.prefs = p
	hs2.send(snapshotMsg{state: demoState(t)})
	if got := hs2.m.composer.ta.Value(); got != "about this: [pasted 300 lines · "+sizeLabel(len(text))+"]" {
		t.Errorf("after a restart the input shows %q", trunc(got, 80))
	}
	if got := hs2.m.composer.value(); got != "about this: "+text {
		t.Errorf("after a restart the draft is %d bytes, want %d", len(got), len(text)+12)
	}
}

// A tui.json written before pastes were folded still loads: its drafts
// come back, a large one folded whole.
func TestOldDraftsStillLoad(t *testing.T) {
	path := filepath.Join(t.TempDir(), prefsFile)
	big := manyLines(500)
	b, _ := json.Marshal(map[string]any{"leftPercent": 30, "drafts": map[string]string{"t1": "short", "t2": big}})
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := loadPrefs(path)
	if err != nil {
		t.Fatal(err)
	}
	if d := p.draft("t1"); d.text != "short" || len(d.pastes) != 0 {
		t.Errorf("short draft: %+v", d)
	}
	if d := p.draft("t2"); d.text != big || len(d.pastes) != 1 || d.pastes[0] != (span{0, len(big)}) {
		t.Errorf("large draft: %d bytes, pastes %+v; want it folded whole", len(d.text), d.pastes)
	}
	// A draft kept now has its (empty) list of pastes, and is not folded.
	p.keepDraft("t3", draft{text: manyLines(20)})
	if d := p.draft("t3"); len(d.pastes) != 0 {
		t.Errorf("a typed 20-line draft comes back with pastes %+v", d.pastes)
	}
}

func TestCleanPaste(t *testing.T) {
	for in, want := range map[string]string{
		"a\r\nb\r\n":       "a\nb\n",
		"a\rb\r":           "a\nb\n",
		"\ta\x1b[31mb\x00": "\ta[31mb",
		"naïve → ok":       "naïve → ok",
	} {
		if got := cleanPaste(in); got != want {
			t.Errorf("cleanPaste(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestKeepTokens(t *testing.T) {
	tok := newBlock(manyLines(20), 0).tok
	at := func(before string) []pasteBlock {
		return []pasteBlock{newBlock(manyLines(20), strings.Index(before, tok))}
	}
	for _, tc := range []struct {
		name, before, after, want string
		tokens                    int
	}{
		{"typed after", "a" + tok, "a" + tok + "]", "a" + tok + "]", 1},
		{"typed before", tok + "b", "[" + tok + "b", "[" + tok + "b", 1},
		{"backspace at its end", "a" + tok + "b", "a" + tok[:len(tok)-1] + "b", "ab", 0},
		{"delete at its start", "a" + tok + "b", "a" + tok[1:] + "b", "ab", 0},
		{"typed inside goes after", "a" + tok, "a" + tok[:5] + "x" + tok[5:], "a" + tok + "x", 1},
		{"selection into it replaced", "abc" + tok + "d", "aZ" + tok[4:] + "d", "aZd", 0},
		{"case change undone", "a" + tok, "a[PASTED" + tok[7:], "a" + tok, 1},
		{"whole token deleted", "a" + tok + "b", "ab", "ab", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, _, kept := keepTokens(tc.before, tc.after, at(tc.before))
			if got != tc.want || len(kept) != tc.tokens {
				t.Fatalf("got %q with %d tokens, want %q with %d", got, len(kept), tc.want, tc.tokens)
			}
			for _, b := range kept {
				if got[b.off:b.end()] != b.tok {
					t.Errorf("a token is not at its offset %d in %q", b.off, got)
				}
			}
		})
	}
}

// Whatever keys are pressed, every token stays whole at its offset, the
// cursor never rests inside one, and the draft is the typed text with
// the pastes where their tokens are.
func TestTokensStayWhole(t *testing.T) {
	keys := []string{"a", "]", "[", " ", "backspace", "delete", "left", "right", "up", "down", "home", "end",
		"alt+left", "alt+right", "alt+backspace", "alt+d", "ctrl+w", "ctrl+j", "shift+left",
		"shift+right", "alt+u", "alt+l", "ctrl+a", "ctrl+e", "paste", "small paste"}
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 20 {
		hs := newHarness(t, demoState(t), 80, 24)
		for step := range 150 {
			k := keys[rng.IntN(len(keys))]
			switch k {
			case "paste":
				hs.send(tea.PasteMsg{Content: manyLines(11 + rng.IntN(30))})
			case "small paste":
				hs.send(tea.PasteMsg{Content: "x]y"})
			case "delete":
				hs.send(tea.KeyPressMsg{Code: tea.KeyDelete})
			default:
				hs.press(k)
			}
			c := &hs.m.composer
			v := c.ta.Value()
			cur := cursorOffset(v, c.ta.Line(), c.ta.Column())
			prev := 0
			for _, b := range c.blocks {
				if b.off < prev || b.end() > len(v) || v[b.off:b.end()] != b.tok {
					t.Fatalf("round %d step %d (%s): a token is not at its offset %d in %q", round, step, k, b.off, v)
				}
				if b.off < cur && cur < b.end() {
					t.Fatalf("round %d step %d (%s): the cursor is inside a token: %q at %d", round, step, k, v, cur)
				}
				prev = b.end()
			}
			if d := c.draft(); len(d.pastes) != len(c.blocks) {
				t.Fatalf("round %d step %d: %d spans for %d tokens", round, step, len(d.pastes), len(c.blocks))
			}
		}
	}
}
