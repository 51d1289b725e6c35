package cli

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// schedule add, list and remove against an inline host: what is
// refused and how, what a schedule lists as, and that an inline host
// does not stay for a schedule (the command returns).
func TestScheduleCommands(t *testing.T) {
	nexus := demoCLI(t)
	th := strings.TrimSpace(first(nexus(ExitOK, "thread", "new", "--title", "nightly")))

	_, stderr := nexus(ExitUsage, "schedule", "add", "hourly", th, "hi")
	if !strings.Contains(stderr, `use "every D"`) || !strings.Contains(stderr, `"*/15 * * * *"`) || strings.Count(stderr, "\n") != 1 {
		t.Fatalf("a bad spec: %q; want one line saying what a valid one looks like", stderr)
	}
	if _, stderr := nexus(ExitUsage, "schedule", "add", "every 1h", th, "hi", "--verify", "true"); !strings.Contains(stderr, "--verify shape a mission") {
		t.Fatalf("mission flags with a thread target: %q", stderr)
	}
	if _, stderr := nexus(ExitFailed, "schedule", "add", "every 30s", th, "hi"); !strings.Contains(stderr, "fires too often: this host takes every 1m0s or more") {
		t.Fatalf("every 30s: %q", stderr)
	}
	if _, stderr := nexus(ExitFailed, "schedule", "add", "every 1h", "no-such-thread", "hi"); !strings.Contains(stderr, `unknown thread "no-such-thread"`) {
		t.Fatalf("an unknown thread: %q", stderr)
	}

	before := time.Now().UnixNano()
	id := strings.TrimSpace(first(nexus(ExitOK, "schedule", "add", "every 1h", "nightly", "run the tests")))
	if !strings.HasPrefix(id, "s") || len(id) != 8 {
		t.Fatalf("schedule add printed %q; want the schedule's id", id)
	}
	cron := strings.TrimSpace(first(nexus(ExitOK, "schedule", "add", " 0  9 * *  1-5 ", th, "standup")))
	var list []ScheduleView
	out, _ := nexus(ExitOK, "schedule", "list", "--json")
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || list[0].ID != id || list[0].Target != th || list[0].Text != "run the tests" || list[0].Fires != 0 || list[0].LastAt != 0 {
		t.Fatalf("schedule list --json: %+v", list)
	}
	if got := list[0].NextAt - list[0].CreatedAt; got != int64(time.Hour) || list[0].CreatedAt < before {
		t.Fatalf("every 1h: next fire %v after its creation", time.Duration(got))
	}
	next := time.Unix(0, list[1].NextAt).UTC()
	if list[1].Spec != "0 9 * * 1-5" || next.Hour() != 9 || next.Minute() != 0 || next.Weekday() == time.Saturday || next.Weekday() == time.Sunday {
		t.Fatalf("the cron schedule: spec %q, next %v", list[1].Spec, next)
	}
	if log, _ := nexus(ExitOK, "log"); !strings.Contains(log, "schedule "+id+` "every 1h" to `+th) {
		t.Fatalf("nexus log does not say what schedule.updated added:\n%s", log)
	}
	text, _ := nexus(ExitOK, "schedule", "list")
	if !strings.Contains(text, "NEXT (UTC)") || !strings.Contains(text, id) || !strings.Contains(text, "0 9 * * 1-5") {
		t.Fatalf("schedule list:\n%s", text)
	}

	nexus(ExitOK, "schedule", "remove", cron[:5])
	if _, stderr := nexus(ExitUsage, "schedule", "remove", cron); !strings.Contains(stderr, "unknown schedule") {
		t.Fatalf("removing it again: %q", stderr)
	}
	out, _ = nexus(ExitOK, "schedule", "list", "--json")
	if err := json.Unmarshal([]byte(out), &list); err != nil || len(list) != 1 || list[0].ID != id {
		t.Fatalf("after the removal: %+v %v", list, err)
	}
}

// A mission target stores the mission's shape as resolved when the
// schedule is added: the repository's commit and the agents.
func TestScheduleMissionTarget(t *testing.T) {
	nexus := demoCLI(t)
	repo := t.TempDir()
	for _, args := range [][]string{{"init", "-q"}, {"commit", "-q", "--allow-empty", "-m", "initial"}} {
		c := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		c.Dir = repo
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	if _, stderr := nexus(ExitUsage, "schedule", "add", "every 1h", "mission", "tidy", "--agents", "nobody", "--workspace", repo); !strings.Contains(stderr, "--agents") {
		t.Fatalf("an unknown agent: %q", stderr)
	}
	nexus(ExitOK, "schedule", "add", "*/30 * * * *", "mission", "tidy the docs", "--workspace", repo, "--strategy", "race", "--agents", "builtin,builtin", "--verify", "true", "--yes")
	var list []ScheduleView
	out, _ := nexus(ExitOK, "schedule", "list", "--json")
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatal(err)
	}
	m := list[0].Mission
	if len(list) != 1 || list[0].Target != "mission" || m == nil || m.Strategy != "race" || len(m.Agents) != 2 || m.Verify != "true" || !m.AutoApprove || len(m.Base) != 40 {
		t.Fatalf("the mission schedule: %+v %+v", list, m)
	}
}

func first(a, _ string) string { return a }
