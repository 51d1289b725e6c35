package core

import (
	"strings"
	"testing"
)

func TestNoticeOf(t *testing.T) {
	const at = 1000
	cases := []struct {
		name string
		ev   Event
		kind string // "" for no notice
		text string
	}{
		{"request opens", Event{Seq: 5, At: at, Type: EvRequestUpdated, Thread: "t1",
			Payload: Payload{Request: &Request{ID: "R1", Run: "t1/1", Kind: RequestApproval, Status: RequestPending, Prompt: "Run ls?"}}},
			NoticeWaiting, "Run ls?"},
		{"request answered", Event{Seq: 6, At: at, Type: EvRequestUpdated,
			Payload: Payload{Request: &Request{ID: "R1", Status: RequestResolved, Prompt: "Run ls?"}}}, "", ""},
		{"run fails", Event{Seq: 7, At: at, Type: EvRunUpdated,
			Payload: Payload{Run: &Run{ID: "t1/2", Ordinal: 2, Status: RunFailed, Error: "boom", EndedAt: at}}},
			NoticeFailed, "run 2 failed: boom"},
		{"run completes", Event{Seq: 8, At: at, Type: EvRunUpdated,
			Payload: Payload{Run: &Run{ID: "t1/3", Ordinal: 3, Status: RunCompleted, Reply: "done", EndedAt: at}}},
			NoticeFinished, "run 3 finished: done"},
		{"completion barrier holds the run", Event{Seq: 9, At: at, Type: EvRunUpdated,
			Payload: Payload{Run: &Run{ID: "t1/3", Status: RunRunning, Finishing: RunCompleted}}}, "", ""},
		{"an undo restores an old status", Event{Seq: 10, At: at + 5, Type: EvRunUpdated,
			Payload: Payload{Run: &Run{ID: "t1/3", Status: RunCompleted, EndedAt: at}}}, "", ""},
		{"interrupted is not a notice", Event{Seq: 11, At: at, Type: EvRunUpdated,
			Payload: Payload{Run: &Run{ID: "t1/4", Status: RunInterrupted, EndedAt: at}}}, "", ""},
		{"a live delta is not a fact", Event{Seq: 0, At: at, Type: EvRequestUpdated,
			Payload: Payload{Request: &Request{Status: RequestPending}}}, "", ""},
	}
	for _, c := range cases {
		n, ok := NoticeOf(&c.ev)
		if c.kind == "" {
			if ok {
				t.Errorf("%s: got notice %+v, want none", c.name, n)
			}
			continue
		}
		if !ok || n.Kind != c.kind || n.Text != c.text {
			t.Errorf("%s: got %+v %v, want %s %q", c.name, n, ok, c.kind, c.text)
		}
	}
	n, _ := NoticeOf(&cases[0].ev)
	if n.Run != "t1/1" || n.Request != "R1" || n.Prompt != "Run ls?" || n.Thread != "t1" {
		t.Errorf("waiting notice = %+v, want run t1/1, request R1 and its prompt", n)
	}
	long := Event{Seq: 12, At: at, Type: EvRunUpdated,
		Payload: Payload{Run: &Run{ID: "t1/5", Ordinal: 5, Status: RunCompleted, Reply: strings.Repeat("é", MaxNoticeText), EndedAt: at}}}
	if n, _ := NoticeOf(&long); len(n.Text) > MaxNoticeText || !strings.HasPrefix(n.Text, "run 5 finished: é") {
		t.Errorf("a long reply's notice is %d bytes, want at most %d", len(n.Text), MaxNoticeText)
	}
}

// A mission is news when it begins to wait on the person and when it
// ends (not on every update, and not when the person stopped it).
func TestMissionNotices(t *testing.T) {
	m := &Mission{ID: "m1", PlanThread: "m1-plan", Status: MissionAwaitPlan, AskedAt: 5, Tasks: []Task{{ID: "1"}, {ID: "2"}}}
	ev := &Event{Seq: 3, Type: EvMissionUpdated, At: 5, Payload: Payload{Mission: m}}
	n, ok := NoticeOf(ev)
	if !ok || n.Kind != NoticeWaiting || n.Mission != "m1" || n.Thread != "m1-plan" || n.Text != "mission m1: the plan of 2 tasks waits for approval" {
		t.Fatalf("plan waiting: %+v %v", n, ok)
	}
	ev.At = 6 // a later update of the same wait
	if n, ok := NoticeOf(ev); ok {
		t.Fatalf("a later update is news again: %+v", n)
	}
	m2 := &Mission{ID: "m1", Status: MissionFailed, EndedAt: 9, Result: "no task passed", Tasks: []Task{{ID: "1", Thread: "m1-t1", Status: TaskFailed}}}
	n, ok = NoticeOf(&Event{Seq: 4, Type: EvMissionUpdated, At: 9, Payload: Payload{Mission: m2}})
	if !ok || n.Kind != NoticeFailed || n.Thread != "m1-t1" || n.Text != "mission m1 failed: no task passed" {
		t.Fatalf("failed: %+v %v", n, ok)
	}
	m2.Status = MissionCancelled
	if n, ok := NoticeOf(&Event{Seq: 5, Type: EvMissionUpdated, At: 9, Payload: Payload{Mission: m2}}); ok {
		t.Fatalf("a stop is news: %+v", n)
	}
}
