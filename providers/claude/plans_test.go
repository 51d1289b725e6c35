package claude

import (
	"reflect"
	"testing"

	"github.com/nexus-tui/nexus/core"
)

func todos(items ...string) map[string]any {
	var list []any
	for i := 0; i+1 < len(items); i += 2 {
		list = append(list, map[string]any{"content": items[i], "status": items[i+1]})
	}
	return map[string]any{"todos": list}
}

// A subagent's TodoWrite nests its list under a line for the subagent
// instead of replacing the main agent's list; a subagent of a subagent
// nests one level deeper.
func TestSubagentTodosNest(t *testing.T) {
	var p plans
	p.toolUse("", "tw1", "TodoWrite", todos("read the code", "completed", "fix the bug", "in_progress"))
	p.subagent("task1", "", "Task: find callers")
	p.toolUse("task1", "tw2", "TodoWrite", todos("grep", "completed", "list them", "pending"))
	p.subagent("task2", "task1", "Task: check tests")
	p.toolUse("task2", "tw3", "TodoWrite", todos("run tests", "completed"))
	want := []core.PlanItem{
		{Text: "read the code", Status: "completed"},
		{Text: "fix the bug", Status: "in_progress"},
		{Text: "subagent: Task: find callers", Status: "in_progress"},
		{Text: "grep", Status: "completed", Depth: 1},
		{Text: "list them", Status: "pending", Depth: 1},
		{Text: "subagent: Task: check tests", Status: "completed", Depth: 1},
		{Text: "run tests", Status: "completed", Depth: 2},
	}
	if got := p.items(); !reflect.DeepEqual(got, want) {
		t.Fatalf("items =\n%+v\nwant\n%+v", got, want)
	}
	// The main agent's next TodoWrite replaces only its own list.
	p.toolUse("", "tw4", "TodoWrite", todos("fix the bug", "completed"))
	if got := p.items(); len(got) != 6 || got[0].Text != "fix the bug" || got[1].Depth != 0 || got[2].Depth != 1 {
		t.Fatalf("after the main list changed: %+v", got)
	}
}

// The plan Claude Code proposes in plan mode becomes steps: its list
// items, else its lines.
func TestProposedItems(t *testing.T) {
	got := proposedItems("# Plan\n\n1. Read parser.go\n2. Fix the off-by-one\n- Add a test\n\nThen report.")
	want := []core.PlanItem{{Text: "Read parser.go", Status: "pending"}, {Text: "Fix the off-by-one", Status: "pending"},
		{Text: "Add a test", Status: "pending"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("list plan: %+v", got)
	}
	if got := proposedItems("Look first.\nThen change it."); len(got) != 2 || got[1].Text != "Then change it." {
		t.Fatalf("plan without a list: %+v", got)
	}
}
