package host

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nexus-tui/nexus/core"
)

// A schedule is live work (a background host stays for it) that does
// not refuse a stop; a host for one read-only command (private) neither
// fires nor arms schedules, so a slot missed while no host ran fires
// once, at the start of the next host that serves.
func TestHostSchedules(t *testing.T) {
	t.Setenv("NEXUS_SCHEDULE_MIN_EVERY", "1s")
	dir := filepath.Join(t.TempDir(), "state")
	ctx := context.Background()
	h, err := Start(dir, time.Second, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	b := h.Backend()
	if _, err := b.Submit(ctx, core.Command{Kind: core.CmdThreadCreate, NewThread: "t1", Provider: "builtin"}); err != nil {
		t.Fatal(err)
	}
	// Every 1h: it must not fire while this test runs.
	if _, err := b.Submit(ctx, core.Command{Kind: core.CmdScheduleAdd, NewSchedule: &core.Schedule{ID: "s1", Spec: "every 1h", Thread: "t1", Text: "hi"}}); err != nil {
		t.Fatal(err)
	}
	live, err := h.Live(ctx)
	if err != nil || live.Schedules != 1 || !live.Any() || live.Ongoing() || live.String() != "1 schedule" {
		t.Fatalf("live work with a schedule: %+v (%q), %v", live, live.String(), err)
	}
	if err := h.Stop(ctx, false); err != nil {
		t.Fatalf("a stop without force refused for a schedule: %v", err)
	}
	// The floor is the knob's: 1s here.
	if _, err := b.Submit(ctx, core.Command{Kind: core.CmdScheduleAdd, NewSchedule: &core.Schedule{ID: "s2", Spec: "every 1s", Thread: "t1", Text: "tick"}}); err != nil {
		t.Fatalf("every 1s under NEXUS_SCHEDULE_MIN_EVERY=1s: %v", err)
	}
	if _, err := b.Submit(ctx, core.Command{Kind: core.CmdScheduleRemove, Schedule: "s2"}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Submit(ctx, core.Command{Kind: core.CmdScheduleAdd, NewSchedule: &core.Schedule{ID: "s3", Spec: "every 1s", Thread: "t1", Text: "tock"}}); err != nil {
		t.Fatal(err)
	}
	// Closed before s3's first slot: it is missed while no host runs.
	h.Close()
	time.Sleep(1500 * time.Millisecond) // let s3's slot pass with no host

	p, err := Start(dir, time.Second, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	st, err := p.Backend().State(ctx)
	p.Close()
	if err != nil {
		t.Fatal(err)
	}
	if s := st.Schedules["s3"]; s.Fires != 0 || s.Missed != 0 || len(st.RunsOf("t1")) != 0 {
		t.Fatalf("a private host fired a schedule: %+v, %d runs", s, len(st.RunsOf("t1")))
	}

	h, err = Start(dir, time.Second, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	st, err = h.Backend().State(ctx)
	if err != nil {
		t.Fatal(err)
	}
	s := st.Schedules["s3"]
	if s.Fires < 1 || s.Missed < 1 || st.Schedules["s2"].Fires != 0 || st.Schedules["s1"].Fires != 0 {
		t.Fatalf("after the start: s3 %+v, s2 %+v, s1 %+v", s, st.Schedules["s2"], st.Schedules["s1"])
	}
	var note string
	for _, r := range st.RunsOf("t1") {
		if r.Text != "tock" {
			t.Fatalf("run %s sends %q; only s3 fires", r.ID, r.Text)
		}
	}
	sub, err := h.Backend().Subscribe(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	for ev := range sub.Events {
		if ev.Type == core.EvCronFired {
			note = ev.Payload.Note
			break
		}
	}
	if !strings.Contains(note, "while no host ran; fired once at start") {
		t.Fatalf("the first fire's note: %q", note)
	}
}
