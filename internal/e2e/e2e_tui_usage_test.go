package e2e

import (
	"strconv"
	"testing"
)

// TestTUICostView: alt+u opens the cost view over the real UI in tmux; the
// thread's row shows the tokens `thread show --json` reports for it, the
// provider and day rows and the total follow, and esc closes it.
func TestTUICostView(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	th := e.must("thread", "new", "--title", "costly", "--yes")
	e.must("send", th, "list the files")
	u := e.show(th).Usage
	if u.TokensIn == 0 || u.TokensOut == 0 {
		t.Fatalf("the sim model reported no usage: %+v", u)
	}
	tt := e.startTUI(t)
	tt.waitFor("costly")
	tt.keys("M-u")
	tt.waitForAll("╭─ Cost and tokens", th+" costly (builtin)", "PROVIDER", "DAY (UTC)", "TOTAL",
		" "+strconv.Itoa(u.TokensIn)+" ", " "+strconv.Itoa(u.TokensOut)+" ", "$0.00")
	tt.keys("Escape")
	tt.waitGone("╭─ Cost and tokens")
}
