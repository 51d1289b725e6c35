package builtin

import (
	"strings"
	"testing"
)

// FuzzParseDirectives feeds arbitrary messages to the directive parser. It
// must never panic; what it returns must respect the documented bounds;
// and the text it returns must hold no directive any more, so the agent
// never acts on a control that the parser already consumed, and parsing
// the clean text again changes nothing. Seeds live in
// testdata/fuzz/FuzzParseDirectives.
func FuzzParseDirectives(f *testing.F) {
	for _, s := range []string{"hello", "#slow=4s count to ten", "do it #plan=3 #approve",
		"#ask=Which colour? paint", `#ask="Which colour" paint`, "#subagent #fail x", "#slow=forever x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		d, clean, err := ParseDirectives(text)
		if d.Slow < 0 || d.Slow > MaxSlow || d.Plan < 0 || d.Plan > 50 {
			t.Fatalf("%q: directives out of bounds: %+v", text, d)
		}
		if err != nil && (err.Error() == "" || strings.Contains(err.Error(), "\n")) {
			t.Fatalf("%q: error is not one line: %q", text, err)
		}
		if clean != strings.Join(strings.Fields(clean), " ") {
			t.Fatalf("%q: clean text %q is not whitespace-normalised", text, clean)
		}
		d2, clean2, err2 := ParseDirectives(clean)
		if d2 != (Directives{}) || err2 != nil || clean2 != clean {
			t.Fatalf("%q: the clean text %q still holds a directive: %+v, %q, %v", text, clean, d2, clean2, err2)
		}
	})
}
