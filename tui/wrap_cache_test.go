package tui

import (
	"slices"
	"strings"
	"testing"

	"github.com/nexus-tui/nexus/core"
)

// checkGrowing feeds text to the cache in pieces, as a stream grows, and
// checks after each piece that what the cache returns is exactly what a
// fresh wrap of the whole text gives, at every width.
func checkGrowing(t *testing.T, m *Model, text string, cuts []int) {
	t.Helper()
	m.wraps.drop()
	for _, w := range []int{1, 3, 9, 24, 80} {
		prev := 0
		for _, c := range append(cuts, len(text)) {
			if c < prev || c > len(text) {
				continue
			}
			prev = c
			got := m.wrapIndentCached("n1", text[:c], "  ", w, m.st.Assistant)
			if want := wrapIndent(text[:c], "  ", w, m.st.Assistant); !slices.Equal(got, want) {
				t.Fatalf("width %d, text %q: cached wrap\n%q\nwant\n%q", w, text[:c], got, want)
			}
			got = m.bodyLinesCached("n1", text[:c], w, "    ")
			if want := m.bodyLines(text[:c], w, "    "); !slices.Equal(got, want) {
				t.Fatalf("width %d, text %q: cached body\n%q\nwant\n%q", w, text[:c], got, want)
			}
		}
	}
}

func TestWrapCacheEqualsFreshWrap(t *testing.T) {
	m := newHarness(t, core.NewState(), 100, 30).m
	for _, text := range []string{
		"short",
		"line one\nline two that is a good deal longer than the narrow widths\n\n\nafter blanks\n",
		"tabs\tand\twide ✓ 漢字 text\nnext",
		"\x1b[31mred\x1b[0m\nplain\n\x1b]0;title\x07more\nand more\n",
		"\x1b]52;c;spans\na newline\x07 and after\nx\n",
		"c1 \u009b31m here\nnext\n",
		"bad \xff utf8\nnext\n",
		"bidi \u202e here\nnext\n",
		strings.Repeat("eighty bytes of chatty output from an agent that writes lines all the time.....\n", 40),
	} {
		var cuts []int
		for i := 0; i < len(text); i += 7 {
			cuts = append(cuts, i)
		}
		checkGrowing(t, m, text, cuts)
	}
}

// A node's text replaced by one that does not extend it (a new attempt
// reusing an id in a test, a rewritten output) is wrapped afresh.
func TestWrapCacheStartsOverOnOtherText(t *testing.T) {
	m := newHarness(t, core.NewState(), 100, 30).m
	m.wrapIndentCached("n1", "first text\nkept\n", "", 20, m.st.Assistant)
	got := m.wrapIndentCached("n1", "other\n", "", 20, m.st.Assistant)
	if want := wrapIndent("other\n", "", 20, m.st.Assistant); !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}

// A delta costs what it added: appending a line to a long reply draws
// only the last paragraph and the new one, not the reply again.
func TestWrapCacheDrawsOnlyTheTail(t *testing.T) {
	var c wrapCache
	calls := 0
	para := func(p string, _ int) []string { calls++; return []string{p} }
	text := strings.Repeat("a line of output\n", 1000)
	c.lines("n", "k", text, para)
	calls = 0
	for i := 0; i < 100; i++ {
		text += "another line\n"
		if got := c.lines("n", "k", text, para); len(got) != 1000+i+2 {
			t.Fatalf("%d lines after %d appends, want %d", len(got), i+1, 1000+i+2)
		}
	}
	if calls > 200 {
		t.Fatalf("100 appended lines drew %d paragraphs, want at most 200 (only the tails)", calls)
	}
}

func FuzzWrapCache(f *testing.F) {
	f.Add("hello\nworld, a longer line to wrap\n", uint8(3), uint8(10))
	f.Add("\x1b[1mbold\n\x1b]0;t\x07x\ny", uint8(5), uint8(2))
	f.Add("tab\there ✓\n\nend", uint8(1), uint8(7))
	m := newHarness(f, core.NewState(), 100, 30).m
	f.Fuzz(func(t *testing.T, text string, step, width uint8) {
		if len(text) > 2000 {
			return
		}
		s := int(step%16) + 1
		var cuts []int
		for i := 0; i < len(text); i += s {
			cuts = append(cuts, i)
		}
		w := int(width%100) + 1
		m.wraps.drop()
		for _, c := range append(cuts, len(text)) {
			got := m.wrapIndentCached("n", text[:c], "› ", w, m.st.Assistant)
			if want := wrapIndent(text[:c], "› ", w, m.st.Assistant); !slices.Equal(got, want) {
				t.Fatalf("width %d, text %q: cached %q, want %q", w, text[:c], got, want)
			}
		}
	})
}
