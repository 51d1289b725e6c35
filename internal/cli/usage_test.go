package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestUsageJSON: `nexus usage --json` sums the runs of two threads of the
// built-in agent per thread, provider and day; each thread's row equals
// the usage `thread show --json` reports, the total is their sum, --since
// in the future leaves everything out, and a bad --since is a one-line
// usage error. `nexus budget` sets a thread's budget and shows it.
func TestUsageJSON(t *testing.T) {
	nexus := demoCLI(t)
	var ids []string
	for _, title := range []string{"one", "two"} {
		id, _ := nexus(ExitOK, "thread", "new", "--title", title, "--yes")
		ids = append(ids, strings.TrimSpace(id))
	}
	nexus(ExitOK, "send", ids[0], "read README.md and summarize it")
	nexus(ExitOK, "send", ids[0], "hello")
	nexus(ExitOK, "send", ids[1], "read README.md and summarize it")

	out, _ := nexus(ExitOK, "usage", "--json")
	var rep UsageView
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("usage --json: %v\n%s", err, out)
	}
	if len(rep.Threads) != 2 || rep.Since != "" {
		t.Fatalf("usage --json has %d thread rows, since %q, want 2 and none:\n%s", len(rep.Threads), rep.Since, out)
	}
	sumIn, sumOut := 0, 0
	for i, row := range rep.Threads {
		show, _ := nexus(ExitOK, "thread", "show", row.Thread, "--json")
		var v ThreadView
		if err := json.Unmarshal([]byte(show), &v); err != nil {
			t.Fatal(err)
		}
		if row.Usage != v.Usage || v.Usage.TokensIn == 0 || v.Usage.TokensOut == 0 {
			t.Errorf("thread %s: usage row %+v, thread show --json usage %+v: want equal and not empty", row.Thread, row.Usage, v.Usage)
		}
		if row.Thread != ids[0] && row.Thread != ids[1] || row.Provider != "builtin" || row.Title != map[string]string{ids[0]: "one", ids[1]: "two"}[row.Thread] {
			t.Errorf("row %d = %+v", i, row)
		}
		sumIn, sumOut = sumIn+row.TokensIn, sumOut+row.TokensOut
	}
	if rep.Total.TokensIn != sumIn || rep.Total.TokensOut != sumOut || rep.Total.Runs != 3 || rep.Total.CostUnknown {
		t.Errorf("total %+v, want %d in, %d out over 3 runs, all priced (the sim model is free)", rep.Total, sumIn, sumOut)
	}
	today := time.Now().UTC().Format(time.DateOnly)
	if len(rep.Providers) != 1 || rep.Providers[0].Provider != "builtin" || rep.Providers[0].Usage != rep.Total ||
		len(rep.Days) < 1 || rep.Days[len(rep.Days)-1].Day != today {
		t.Errorf("providers %+v, days %+v: want one builtin row equal to the total, and today (%s) last", rep.Providers, rep.Days, today)
	}
	text, _ := nexus(ExitOK, "usage")
	if !strings.Contains(text, "TOTAL") || !strings.Contains(text, `"one"`) || !strings.Contains(text, today) {
		t.Errorf("usage prints no total, thread title or day:\n%s", text)
	}

	out, _ = nexus(ExitOK, "usage", "--json", "--since", "2200-01-01")
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Since != "2200-01-01T00:00:00Z" || len(rep.Threads) != 0 || rep.Total.Runs != 0 {
		t.Errorf("usage --since 2200-01-01 = %s", out)
	}
	out, _ = nexus(ExitOK, "usage", "--json", "--since", "7d")
	if err := json.Unmarshal([]byte(out), &rep); err != nil || rep.Total.Runs != 3 {
		t.Errorf("usage --since 7d = %s (%v), want the 3 runs", out, err)
	}
	_, errOut := nexus(ExitUsage, "usage", "--since", "yesterday")
	if !strings.HasPrefix(errOut, `nexus: --since "yesterday": give a duration ago`) || strings.Count(errOut, "\n") != 1 {
		t.Errorf("bad --since: %q", errOut)
	}

	nexus(ExitOK, "budget", ids[1], "--usd", "2.5", "--max-tokens", "90000")
	out, _ = nexus(ExitOK, "budget", ids[1])
	if !strings.Contains(out, "budget $2.50, token cap 90000") {
		t.Errorf("budget shows %q", out)
	}
	_, errOut = nexus(ExitUsage, "budget", ids[1], "--usd", "-1")
	if !strings.Contains(errOut, "--usd -1: give an amount in US dollars") {
		t.Errorf("negative budget: %q", errOut)
	}
	nexus(ExitOK, "budget", "--daily", "--usd", "3")
	out, _ = nexus(ExitOK, "budget", "--daily")
	if want := "spent $0.00 on " + today + " (UTC); daily budget $3.00\n"; out != want {
		t.Errorf("budget --daily shows %q, want %q", out, want)
	}
	if _, errOut = nexus(ExitUsage, "budget"); !strings.Contains(errOut, "give a THREAD, or --daily") {
		t.Errorf("budget without a thread: %q", errOut)
	}
}

// demoCLI runs nexus in-process in a workspace with a README.md and a
// state dir of its own; it returns stdout and stderr, and fails the test
// on another exit code than want.
func demoCLI(t *testing.T) func(want int, args ...string) (string, string) {
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "README.md"), []byte("# Demo\n\nA demo project.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(ws)
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("NEXUS_CONFIG", "")
	dir := filepath.Join(t.TempDir(), "state")
	return func(want int, args ...string) (string, string) {
		t.Helper()
		var out, errOut bytes.Buffer
		code := Run(context.Background(), append([]string{"--state-dir", dir}, args...), strings.NewReader(""), &out, &errOut)
		if code != want {
			t.Fatalf("nexus %s: exit %d, want %d: %s%s", strings.Join(args, " "), code, want, out.String(), errOut.String())
		}
		return out.String(), errOut.String()
	}
}

// TestProfileBudget: a config-file profile's budget_usd and max_tokens are
// a new thread's budget unless `thread new` gives one.
func TestProfileBudget(t *testing.T) {
	nexus := demoCLI(t)
	cfg := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(cfg, []byte("[profiles.claude]\nbudget_usd = 0.5\nmax_tokens = 9000\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("NEXUS_CONFIG", cfg)
	for _, tc := range []struct {
		args   []string
		usd    float64
		tokens int
	}{
		{nil, 0.5, 9000},
		{[]string{"--budget-usd", "2"}, 2, 9000},
	} {
		id, _ := nexus(ExitOK, append([]string{"thread", "new", "--provider", "claude"}, tc.args...)...)
		out, _ := nexus(ExitOK, "thread", "show", strings.TrimSpace(id), "--json")
		var v ThreadView
		if err := json.Unmarshal([]byte(out), &v); err != nil {
			t.Fatal(err)
		}
		if v.BudgetUSD != tc.usd || v.MaxTokens != tc.tokens {
			t.Errorf("thread new %v: budget $%g, %d tokens; want $%g, %d", tc.args, v.BudgetUSD, v.MaxTokens, tc.usd, tc.tokens)
		}
	}
}
