package core

import "strings"

// ReviewPrompt begins the instruction a mission's reviewer gets: the
// last section of its compiled message, as a task's ("Task: ..."),
// after the goal, the work under review and the change. The offline
// model recognises it and answers from the change.
const ReviewPrompt = "Review the change above: does it do what the task asks, correctly and completely?"

// reviewFormat is how the reviewer is asked to answer (ParseVerdict).
const reviewFormat = `Answer with PASS or FAIL first, followed by a colon and your reasons ("PASS: ..." or "FAIL: ..."); any other answer counts as FAIL.`

// ReviewTask is the Thread.Task of a mission's reviewer thread: it
// works for the mission, on no task of it.
const ReviewTask = "review"

// MaxReviewDiff bounds the change a reviewer is shown: the host cuts the
// diff there and says so.
const MaxReviewDiff = 32 << 10

// notAVerdict is the reason of a reply ParseVerdict cannot read.
const notAVerdict = "the reviewer's reply is not a verdict"

// ParseVerdict reads a reviewer's reply: its first non-blank line starts
// with PASS or FAIL (in any case, markdown emphasis or a heading mark
// around it allowed, not part of a longer word), and the reasons follow:
// the rest of that line after a colon or dash, then the lines after it.
// Any other reply is a FAIL with the reason "the reviewer's reply is not
// a verdict"; a FAIL without reasons says that it has none. The reasons
// are bounded as a verifier's output is (MaxCheckOutput, head and tail),
// and valid UTF-8 when the reply is.
func ParseVerdict(reply string) (pass bool, reasons string) {
	line, more, _ := strings.Cut(strings.TrimLeft(reply, " \t\r\n"), "\n")
	line = strings.TrimLeft(line, "*_`#> \t")
	switch {
	case verdictWord(line, "pass"):
		pass = true
	case verdictWord(line, "fail"):
	default:
		return false, notAVerdict
	}
	line = strings.TrimLeft(line[4:], "*_`")
	line = strings.TrimLeft(line, " \t:.-–—")
	reasons = strings.TrimSpace(strings.TrimSpace(line) + "\n" + more)
	if !pass && reasons == "" {
		reasons = "the reviewer gave no reasons"
	}
	return pass, clipOutput(reasons)
}

// verdictWord reports whether s starts with the word w (lower-case
// ASCII), in any case, not followed by a letter or digit.
func verdictWord(s, w string) bool {
	if len(s) < len(w) || asciiLower(s[:len(w)]) != w {
		return false
	}
	if len(s) == len(w) {
		return true
	}
	c := s[len(w)]
	return !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_')
}
