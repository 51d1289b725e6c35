package core

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParsePlan(t *testing.T) {
	reply := "Here is the plan:\n1. write a to a.txt\n2) write b to b.txt (after 1)\n- run `go test` (after 1, task2, 7, 3)\n\nnot a task\n12345. too long a number\n3.\n"
	got := ParsePlan(reply)
	want := []Task{
		{ID: "1", Text: "write a to a.txt", Status: TaskPending},
		{ID: "2", Text: "write b to b.txt", Deps: []string{"1"}, Status: TaskPending},
		// Dependencies on unknown or later tasks are dropped: no cycle.
		{ID: "3", Text: "run `go test`", Deps: []string{"1", "2"}, Status: TaskPending},
	}
	if !slices.EqualFunc(got, want, func(a, b Task) bool {
		return a.ID == b.ID && a.Text == b.Text && a.Status == b.Status && slices.Equal(a.Deps, b.Deps)
	}) {
		t.Fatalf("ParsePlan:\n got %+v\nwant %+v", got, want)
	}
	many := strings.Repeat("- task\n", 40)
	if n := len(ParsePlan(many)); n != MaxMissionTasks {
		t.Fatalf("a plan of 40 tasks kept %d; want the first %d", n, MaxMissionTasks)
	}
}

// FuzzParsePlan: any reply gives a bounded plan whose dependencies point
// only at earlier tasks, with valid UTF-8 text.
func FuzzParsePlan(f *testing.F) {
	f.Add("1. a\n2. b (after 1)\n")
	f.Add("- x (after 0, 1, 1)\n* y (after task1)")
	f.Fuzz(func(t *testing.T, reply string) {
		tasks := ParsePlan(reply)
		if len(tasks) > MaxMissionTasks {
			t.Fatalf("%d tasks", len(tasks))
		}
		for i, tk := range tasks {
			if tk.ID != itoa(i+1) || tk.Text == "" || len(tk.Text) > 4<<10 {
				t.Fatalf("task %d: %+v", i, tk)
			}
			if utf8.ValidString(reply) && !utf8.ValidString(tk.Text) {
				t.Fatalf("task %d text is not UTF-8: %q", i, tk.Text)
			}
			for _, d := range tk.Deps {
				if d >= tk.ID && len(d) >= len(tk.ID) {
					t.Fatalf("task %s depends on %s, not an earlier task", tk.ID, d)
				}
			}
		}
	})
}
