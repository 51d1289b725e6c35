package llm

import (
	"context"
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
