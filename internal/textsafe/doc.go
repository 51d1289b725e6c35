// Package textsafe makes text from agents, tools and files safe to show
// on a terminal. Agent text is untrusted: an escape sequence in a reply
// or an approval prompt could move the cursor, rewrite what is on screen
// (an approval that reads "ls" while the command is "curl ... | sh"),
// retitle the terminal, write the clipboard (OSC 52) or query it. Clean
// removes every escape sequence and control character but newline, turns
// tabs into spaces, and shows the bidirectional controls that reorder
// text (U+202A-U+202E, U+2066-U+2069) as visible marks, so text reads in
// the order it is stored. Writer applies Clean to everything written
// through it: the command line wraps its terminal output in one, and its
// --json output never (JSON escapes control characters itself).
package textsafe
