package e2e

import (
	"fmt"
	"regexp"
	"strconv"
	"testing"
	"time"
)

// waitMatch polls the screen until re matches it.
func (tt *tmuxTUI) waitMatch(re *regexp.Regexp) string {
	tt.t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		scr := tt.screen()
		if m := re.FindString(scr); m != "" {
			return m
		}
		if time.Now().After(deadline) {
			tt.t.Fatalf("waited for %s on screen; the screen is:\n%s", re, scr)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// The thread list says, live, what a running builtin run does and how
// long it has run, from the protocol: the command its step runs.
func TestTUIListActivityBuiltin(t *testing.T) {
	e := newEnv(t)
	e.must("thread", "new", "--workspace", e.ws, "--title", "sleeper", "--yes")
	tt := e.startTUI(t)
	tt.resize(160, 40) // room in the list for the whole activity
	tt.waitFor("sleeper")
	tt.text("run `sleep 60`")
	tt.keys("Enter")
	tt.waitMatch(regexp.MustCompile(`● running \d+s · running sleep 60`))
	// The elapsed time moves while the run runs.
	first := tt.waitMatch(regexp.MustCompile(`● running \d+s`))
	deadline := time.Now().Add(2 * time.Minute)
	for tt.waitMatch(regexp.MustCompile(`● running \d+s`)) == first {
		if time.Now().After(deadline) {
			t.Fatalf("the elapsed time stayed %q:\n%s", first, tt.screen())
		}
		time.Sleep(200 * time.Millisecond)
	}
	tt.keys("C-x")
	tt.waitFor("interrupted")
	tt.quitIdle()
}

// The same for a Claude Code run (the real CLI against the fake model
// server): its Bash tool call shows as the command it runs.
func TestTUIListActivityClaude(t *testing.T) {
	needCLI(t, "claude")
	anthropicModel(t)
	e := newEnv(t)
	th := e.must("thread", "new", "--provider", "claude", "--workspace", e.ws, "--title", "claude sleeper", "--yes")
	tt := e.startTUI(t)
	tt.resize(160, 40)
	tt.waitFor("claude sleeper")
	tt.text("run: sleep 6")
	tt.keys("Enter")
	tt.waitMatch(regexp.MustCompile(`● running \d+s · running sleep 6`))
	tt.waitFor("✓ done")
	// The row's tokens and cost are the thread's, as thread show sums them.
	u := e.show(th).Usage
	if u.TokensIn+u.TokensOut == 0 {
		t.Fatalf("thread show reports no usage for a Claude run whose model reported some: %+v", u)
	}
	tt.waitFor(listTokens(u.TokensIn+u.TokensOut) + " tok · " + u.Cost())
	tt.quitIdle()
}

// listTokens is a token count as the thread list shows it.
func listTokens(n int) string {
	if n < 1000 {
		return strconv.Itoa(n)
	}
	return fmt.Sprintf("%.1fk", float64(n)/1000)
}
