package agentproc

import "unicode/utf8"

// MaxCount bounds a token count taken from an agent's frame: a malformed
// or hostile one must not wrap the thread's totals or its budget.
const MaxCount = 1 << 40

// Count is a token count from an agent, kept within [0, MaxCount].
func Count(n int) int { return min(max(n, 0), MaxCount) }

// Cut bounds s to n bytes, cutting at a rune boundary so that the text
// stays valid UTF-8, and appends mark when it cut.
func Cut(s string, n int, mark string) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + mark
}
