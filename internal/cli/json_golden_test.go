package cli

import (
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden JSON shapes in testdata/json")

// TestJSONShapes guards the --json contract (README.md "JSON output"):
// field names never change. A scenario that exercises every view (a run
// that waits on an approval, is answered and completes with a checkpoint)
// prints thread show, thread list, requests and log as JSON; the set of
// field paths and their JSON types must equal testdata/json/*.golden. A
// renamed or removed field fails here; an added one fails until the
// golden file is rewritten with -update, so every change is deliberate.
func TestJSONShapes(t *testing.T) {
	run := demoCLI(t)
	nexus := func(want int, args ...string) string {
		t.Helper()
		out, _ := run(want, args...)
		return out
	}
	shapes := map[string]map[string]bool{}
	add := func(name, out string) {
		t.Helper()
		dec := json.NewDecoder(strings.NewReader(out))
		for dec.More() {
			var v any
			if err := dec.Decode(&v); err != nil {
				t.Fatalf("%s printed invalid JSON: %v\n%s", name, err, out)
			}
			if shapes[name] == nil {
				shapes[name] = map[string]bool{}
			}
			jsonShape(v, "$", shapes[name])
		}
	}
	th := strings.TrimSpace(nexus(ExitOK, "thread", "new", "--title", "demo"))
	req := strings.TrimSpace(nexus(ExitWaiting, "send", th, "read README.md and write a summary to SUMMARY.md"))
	add("requests", nexus(ExitOK, "requests", "--json"))
	add("thread_show", nexus(ExitOK, "thread", "show", th, "--json"))
	nexus(ExitOK, "respond", req, "--allow")
	nexus(ExitOK, "send", th, "hello")
	add("thread_show", nexus(ExitOK, "thread", "show", th, "--json"))
	add("requests", nexus(ExitOK, "requests", th, "--json"))
	add("thread_list", nexus(ExitOK, "thread", "list", "--json"))
	add("log", nexus(ExitOK, "log", "--json"))
	add("usage", nexus(ExitOK, "usage", "--json"))
	// A thread in a worktree of its own names it, its repository and
	// its branch.
	repo := t.TempDir()
	for _, args := range [][]string{{"init", "-q"}, {"commit", "-q", "--allow-empty", "-m", "initial"}} {
		c := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		c.Dir = repo
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	wt := strings.TrimSpace(nexus(ExitOK, "thread", "new", "--workspace", repo, "--worktree", "--branch", "nexus/demo"))
	add("thread_show", nexus(ExitOK, "thread", "show", wt, "--json"))
	// A thread started as an agent names it; the agent views.
	nexus(ExitOK, "agent", "add", "reviewer", "--instructions", "Say pass or fail.")
	as := strings.TrimSpace(nexus(ExitOK, "thread", "new", "--agent", "reviewer"))
	add("thread_show", nexus(ExitOK, "thread", "show", as, "--json"))
	add("agent_list", nexus(ExitOK, "agent", "list", "--json"))
	add("agent_show", nexus(ExitOK, "agent", "show", "reviewer", "--json"))
	// Missions: a split (its task thread shows the compiled context) and
	// a race (votes, a winner) with a reviewer (its checks and votes).
	split := strings.Fields(nexus(ExitOK, "mission", "new", "write hello to a.txt and write world to b.txt", "--workspace", repo,
		"--verify", "test -f a.txt -a -f b.txt", "--yes", "--wait"))[0]
	add("mission_show", nexus(ExitOK, "mission", "show", split, "--json"))
	add("thread_show", nexus(ExitOK, "thread", "show", split+"-t1", "--json"))
	race := strings.Fields(nexus(ExitOK, "mission", "new", "write hi to c.txt", "--workspace", repo, "--strategy", "race",
		"--agents", "builtin,reviewer", "--verify", "test -f c.txt", "--reviewer", "reviewer", "--yes", "--wait"))[0]
	add("mission_show", nexus(ExitOK, "mission", "show", race, "--json"))
	add("mission_list", nexus(ExitOK, "mission", "list", "--json"))
	// Schedules: a message to a thread, and missions.
	nexus(ExitOK, "schedule", "add", "every 1h", th, "hello")
	nexus(ExitOK, "schedule", "add", "*/15 * * * *", "mission", "write hi to d.txt", "--workspace", repo, "--verify", "test -f d.txt", "--yes")
	add("schedule_list", nexus(ExitOK, "schedule", "list", "--json"))

	for _, name := range []string{"thread_show", "thread_list", "requests", "log", "usage", "agent_list", "agent_show", "mission_show", "mission_list", "schedule_list"} {
		var lines []string
		for l := range shapes[name] {
			lines = append(lines, l)
		}
		sort.Strings(lines)
		got := strings.Join(lines, "\n") + "\n"
		path := filepath.Join("testdata", "json", name+".golden")
		if *update {
			if err := os.WriteFile(filepath.Join(origDir(t), path), []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		b, err := os.ReadFile(filepath.Join(origDir(t), path))
		if err != nil {
			t.Fatalf("%v (write it with go test -run TestJSONShapes -update)", err)
		}
		want := strings.Split(strings.TrimSpace(string(b)), "\n")
		var missing, extra []string
		for _, l := range want {
			if !shapes[name][l] {
				missing = append(missing, l)
			}
		}
		for _, l := range lines {
			if !slices.Contains(want, l) {
				extra = append(extra, l)
			}
		}
		if len(missing) > 0 {
			t.Errorf("%s --json lost fields (renamed or removed; the JSON contract forbids it):\n  %s", name, strings.Join(missing, "\n  "))
		}
		if len(extra) > 0 {
			t.Errorf("%s --json has new fields; if intended, document them and rewrite %s with -update:\n  %s", name, path, strings.Join(extra, "\n  "))
		}
	}
}

// optionalShapes are fields present only sometimes in the same scenario:
// a model call's duration is omitted when it rounds to 0 ms, which
// depends on how busy the machine is. They are neither required nor
// reported as new.
var optionalShapes = map[string]bool{
	"$.payload.node.durationMs: number": true,
}

// jsonShape adds to set one "path: type" line per value under v; arrays
// merge the shapes of their elements under path[].
func jsonShape(v any, path string, set map[string]bool) {
	switch x := v.(type) {
	case map[string]any:
		set[path+": object"] = true
		for k, e := range x {
			jsonShape(e, path+"."+k, set)
		}
	case []any:
		set[path+": array"] = true
		for _, e := range x {
			jsonShape(e, path+"[]", set)
		}
	case string:
		set[path+": string"] = true
	case float64:
		if !optionalShapes[path+": number"] {
			set[path+": number"] = true
		}
	case bool:
		set[path+": bool"] = true
	case nil:
		set[path+": null"] = true
	}
}

// testDir is the package directory, where go test starts: the test
// changes into a workspace, so testdata is reached through it.
var testDir, _ = os.Getwd()

func origDir(t *testing.T) string {
	t.Helper()
	if testDir == "" {
		t.Fatal("cannot tell the package directory")
	}
	return testDir
}
