package e2e

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/nexus-tui/nexus/internal/cli"
)

// TestClaudeBudget is the budget's acceptance test with the real Claude
// Code against the fake Anthropic API, whose "spend:" reply reports
// 20,000 output tokens: a thread with a budget of $0.01 runs its first
// turn, which Claude prices above the budget; the next turn is held
// before it reaches Claude, with a budget request (`nexus send` exits 3
// naming it); raising the budget with `nexus budget` lets it go on. The
// costs reported are the sums of what Claude reported: thread show
// --json equals the sum of its runs, and `nexus usage --json` agrees.
func TestClaudeBudget(t *testing.T) {
	needCLI(t, "claude")
	m := anthropicModel(t)
	e := newEnv(t)
	th := e.must("thread", "new", "--provider", "claude", "--workspace", e.ws, "--budget-usd", "0.01")
	stop := e.serve()
	defer stop()

	if out := e.must("send", th, "spend: one"); !strings.Contains(out, "spent: one") {
		t.Fatalf("reply = %q", out)
	}
	v := e.show(th)
	if v.Usage.CostUSD <= 0.01 || v.Usage.TokensOut < 20000 || v.Runs[0].CostUSD != v.Usage.CostUSD {
		t.Fatalf("after run 1: usage %+v, run 1 cost %g: want more than $0.01 and 20,000 tokens out, all run 1's", v.Usage, v.Runs[0].CostUSD)
	}

	res := e.run("send", th, "hello")
	if res.code != 3 {
		t.Fatalf("send over the budget: exit %d, want 3 (waiting): %s %s", res.code, res.out, res.err)
	}
	q := e.pendingRequest(th)
	if q.Kind != "budget" || q.Run != 2 || !strings.Contains(q.Prompt, "spent of $0.0100") || !strings.Contains(res.out, q.ID) {
		t.Fatalf("request %+v (send printed %q): want a budget request for run 2, named by send", q, res.out)
	}
	if slices.Contains(m.Texts(), "hello") {
		t.Fatalf("the held turn reached Claude: the model saw %q", m.Texts())
	}
	if out := e.must("requests"); !strings.Contains(out, q.ID) || !strings.Contains(out, "budget") {
		t.Errorf("`nexus requests` does not list the budget request:\n%s", out)
	}

	e.must("budget", th, "--usd", "5")
	v = e.waitRun(th, 2, "completed", "failed", "cancelled")
	if v.Runs[1].Status != "completed" || v.Runs[1].Reply != "echo: hello" || v.BudgetUSD != 5 {
		t.Fatalf("run 2 = %+v, budget %g: want it completed by Claude under a budget of $5", v.Runs[1], v.BudgetUSD)
	}
	for _, r := range v.Requests {
		if r.ID == q.ID && (r.Status != "resolved" || r.Response != "allow") {
			t.Errorf("budget request after the raise: %+v", r)
		}
	}

	var sum float64
	for _, r := range v.Runs {
		sum += r.CostUSD
	}
	var rep cli.UsageView
	if err := json.Unmarshal([]byte(e.must("usage", "--json")), &rep); err != nil {
		t.Fatal(err)
	}
	if sum != v.Usage.CostUSD || len(rep.Threads) != 1 || rep.Threads[0].Usage != v.Usage || rep.Total != v.Usage ||
		len(rep.Providers) != 1 || rep.Providers[0].Provider != "claude" {
		t.Errorf("thread show usage %+v, runs sum to $%g; usage --json %+v: want all equal, under provider claude", v.Usage, sum, rep)
	}
}
