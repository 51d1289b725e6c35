package textsafe

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// Clean returns s safe to print on a terminal; newlines stay.
func Clean(s string) string {
	if s == "" {
		return s
	}
	s = ansi.Strip(s)
	// Invalid UTF-8 becomes U+FFFD whatever else s holds, so that a
	// piece of text cleans the same alone as inside a longer one.
	clean := true
	for _, r := range s {
		if unsafe(r) || r == utf8.RuneError {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\t':
			b.WriteString("    ")
		case bidi(r):
			fmt.Fprintf(&b, "<U+%04X>", r)
		case unsafe(r):
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// unsafe reports a rune Clean does not print as is.
func unsafe(r rune) bool {
	return (r < 0x20 && r != '\n') || r == 0x7f || (r >= 0x80 && r < 0xa0) || bidi(r)
}

// bidi reports the embedding, override and isolate controls.
func bidi(r rune) bool {
	return (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069)
}

// Writer cleans everything written through it. Each Write is cleaned on
// its own: write whole lines or messages, as fmt.Fprintf does.
type Writer struct{ W io.Writer }

// Write implements io.Writer; it reports len(p) when the cleaned text
// was written.
func (w Writer) Write(p []byte) (int, error) {
	if _, err := io.WriteString(w.W, Clean(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}
