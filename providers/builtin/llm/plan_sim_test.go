package llm

import (
	"context"
	"strings"
	"testing"

	"github.com/nexus-tui/nexus/core"
)

// The offline model plans a mission: one task per clause, a clause after
// "then" depending on the ones before; the kernel's parser reads it back.
func TestSimPlansAMission(t *testing.T) {
	msg := core.PlanPrompt + " Reply with one task per line. Goal: write a to a.txt and write b to b.txt, then write c to c.txt"
	resp, err := Sim{}.Complete(context.Background(), Request{Messages: []Message{{Role: "user", Text: msg}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := "1. write a to a.txt\n2. write b to b.txt\n3. write c to c.txt (after 1, 2)\n"
	if resp.Text != want || len(resp.ToolCalls) != 0 {
		t.Fatalf("plan:\n%q\nwant\n%q", resp.Text, want)
	}
	tasks := core.ParsePlan(resp.Text)
	if len(tasks) != 3 || tasks[2].Text != "write c to c.txt" || len(tasks[2].Deps) != 2 || tasks[2].Deps[1] != "2" || len(tasks[0].Deps) != 0 {
		t.Fatalf("parsed plan: %+v", tasks)
	}
	// A compiled task turn: the sim acts on its Task line only.
	task := core.CompileText([]core.Section{{Source: "task", Title: "Mission", Text: "Goal: write a to a.txt and write b to b.txt"},
		{Source: "task", Title: "Task", Text: "Task: write b to b.txt"}})
	resp, err = Sim{}.Complete(context.Background(), Request{Messages: []Message{{Role: "user", Text: task}}}, nil)
	if err != nil || len(resp.ToolCalls) != 1 || resp.ToolCalls[0].Args["path"] != "b.txt" {
		t.Fatalf("task turn: %+v %v", resp.ToolCalls, err)
	}
}

// The offline model reviews a mission's change: PASS, unless the change
// has the word "wrong" in it; the kernel's parser reads the verdict.
func TestSimReviews(t *testing.T) {
	review := func(change string) string {
		t.Helper()
		msg := core.CompileText([]core.Section{{Source: "task", Title: "Mission", Text: "Goal: write hello to a.txt, not wrong things"},
			{Source: "task", Title: "Under review", Text: "Task 1 of 1: write hello to a.txt"},
			{Source: "runtime", Title: "Change", Text: change},
			{Source: "task", Title: "Task", Text: "Task: " + core.ReviewPrompt + " Answer with PASS or FAIL."}})
		resp, err := Sim{}.Complete(context.Background(), Request{Messages: []Message{{Role: "user", Text: msg}}}, nil)
		if err != nil || len(resp.ToolCalls) != 0 {
			t.Fatalf("review: %+v %v", resp, err)
		}
		// The built-in agent hands the model the message on one line
		// (directives taken out): the same verdict.
		flat, err := Sim{}.Complete(context.Background(), Request{Messages: []Message{{Role: "user", Text: strings.Join(strings.Fields(msg), " ")}}}, nil)
		if err != nil || flat.Text != resp.Text {
			t.Fatalf("the flattened review: %q, not %q (%v)", flat.Text, resp.Text, err)
		}
		return resp.Text
	}
	if got := review("diff --git a/a.txt b/a.txt\n+hello\n"); got != "PASS: the change does what the task asks" {
		t.Fatalf("a good change: %q", got)
	}
	got := review("diff --git a/a.txt b/a.txt\n+wrong\n")
	if got != `FAIL: the change writes "wrong" instead of what the task asks` {
		t.Fatalf("a wrong change: %q", got)
	}
	if pass, reasons := core.ParseVerdict(got); pass || reasons != `the change writes "wrong" instead of what the task asks` {
		t.Fatalf("ParseVerdict: %v %q", pass, reasons)
	}
	// "wrong" as part of another word is not the word.
	if got := review("+wrongly"); got != "PASS: the change does what the task asks" {
		t.Fatalf("a change without the word: %q", got)
	}
}
