package core

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"
)

func utc(s string) int64 {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t.UnixNano()
}

func fmtUTC(n int64) string { return time.Unix(0, n).UTC().Format(time.RFC3339) }

func TestParseSpecRefuses(t *testing.T) {
	for _, tc := range []struct{ spec, why string }{
		{"", "5 fields, this has 0"},
		{"every", "one duration"},
		{"every 1h 2h", "one duration"},
		{"every soon", `"soon" is not a duration`},
		{"every 500ms", "out of range"},
		{"every -1h", "out of range"},
		{"every 9000h", "out of range"},
		{"every 1500ms", "whole number of seconds"},
		{"* * * *", "5 fields, this has 4"},
		{"* * * * * *", "5 fields, this has 6"},
		{"60 * * * *", "minute field"},
		{"* 24 * * *", "hour field"},
		{"* * 0 * *", "day of the month field"},
		{"* * 32 * *", "not from 1 to 31"},
		{"* * * 13 *", "month field"},
		{"* * * * 8", "day of the week field"},
		{"* * * JAN *", "names such as MON are not taken"},
		{"* * * * MON", "names such as MON are not taken"},
		{"5-1 * * * *", "runs backwards"},
		{"*/0 * * * *", "not a number from 1"},
		{"5/15 * * * *", "a step follows * or a range"},
		{"1,,2 * * * *", "a number is missing"},
		{"-5 * * * *", "a number is missing"},
		{"+5 * * * *", "not a number"},
		{"0 0 30 2 *", "no month has such a day"},
		{"0 0 31 4,6,9,11 *", "no month has such a day"},
	} {
		_, err := ParseSpec(tc.spec)
		var ie *InputError
		if !errors.As(err, &ie) {
			t.Errorf("ParseSpec(%q) = %v; want an *InputError", tc.spec, err)
			continue
		}
		if !strings.Contains(err.Error(), tc.why) || !strings.HasSuffix(err.Error(), SpecHelp) {
			t.Errorf("ParseSpec(%q): %q; want it to say %q and end with what a valid spec looks like", tc.spec, err, tc.why)
		}
	}
}

func TestSpecNext(t *testing.T) {
	for _, tc := range []struct{ spec, after, want string }{
		// Strictly after: a slot equal to after is not the next one.
		{"*/15 * * * *", "2026-03-01T10:15:00Z", "2026-03-01T10:30:00Z"},
		{"*/15 * * * *", "2026-03-01T10:14:59Z", "2026-03-01T10:15:00Z"},
		{"*/15 * * * *", "2026-03-01T23:50:00Z", "2026-03-02T00:00:00Z"},
		{"5-20/5 * * * *", "2026-03-01T10:21:00Z", "2026-03-01T11:05:00Z"},
		{"0,30 9-17 * * *", "2026-03-01T17:30:00Z", "2026-03-02T09:00:00Z"},
		// Year and month ends.
		{"59 23 31 12 *", "2026-12-31T23:59:00Z", "2027-12-31T23:59:00Z"},
		{"0 0 1 * *", "2026-12-31T23:59:59Z", "2027-01-01T00:00:00Z"},
		{"0 0 31 * *", "2026-01-31T00:00:00Z", "2026-03-31T00:00:00Z"}, // no 31st in February
		{"0 0 31 * *", "2026-05-31T12:00:00Z", "2026-07-31T00:00:00Z"}, // nor in June
		{"0 12 30 * *", "2026-01-30T12:00:00Z", "2026-03-30T12:00:00Z"},
		// February 29 only comes in leap years; 2100 is not one.
		{"0 0 29 2 *", "2026-03-01T00:00:00Z", "2028-02-29T00:00:00Z"},
		{"0 0 29 2 *", "2096-03-01T00:00:00Z", "2104-02-29T00:00:00Z"},
		{"0 0 28-31 2 *", "2027-02-28T00:00:00Z", "2028-02-28T00:00:00Z"},
		// Days of the week (2026-03-02 is a Monday); 7 is Sunday too.
		{"0 9 * * 1-5", "2026-03-06T09:00:00Z", "2026-03-09T09:00:00Z"}, // Friday -> Monday
		{"0 9 * * 0", "2026-03-02T00:00:00Z", "2026-03-08T09:00:00Z"},
		{"0 9 * * 7", "2026-03-02T00:00:00Z", "2026-03-08T09:00:00Z"},
		{"0 9 * * 5-7", "2026-03-02T00:00:00Z", "2026-03-06T09:00:00Z"},
		// Both days restricted: either matches (cron's rule).
		{"0 0 13 * 5", "2026-03-02T00:00:00Z", "2026-03-06T00:00:00Z"}, // Friday the 6th, before the 13th
		{"0 0 13 * 5", "2026-03-12T00:00:00Z", "2026-03-13T00:00:00Z"},
		// One of them starts with *: both must match.
		{"0 0 */2 * 1", "2026-03-02T00:00:00Z", "2026-03-09T00:00:00Z"}, // the 9th is odd and a Monday
		// Hours roll over into the next day and month.
		{"30 */6 * * *", "2026-02-28T18:30:00Z", "2026-03-01T00:30:00Z"},
	} {
		sp, err := ParseSpec(tc.spec)
		if err != nil {
			t.Fatalf("ParseSpec(%q): %v", tc.spec, err)
		}
		got, ok := sp.Next(0, utc(tc.after))
		if !ok || fmtUTC(got) != tc.want {
			t.Errorf("%q after %s: %s (%v); want %s", tc.spec, tc.after, fmtUTC(got), ok, tc.want)
		}
	}
}

// An interval counts from when the schedule was added: a late fire does
// not shift the slots after it.
func TestSpecEveryIsAnchored(t *testing.T) {
	sp, err := ParseSpec("every 1h")
	if err != nil {
		t.Fatal(err)
	}
	anchor := utc("2026-03-01T10:07:30Z")
	for _, tc := range []struct{ after, want string }{
		{"2026-03-01T10:07:30Z", "2026-03-01T11:07:30Z"},
		{"2026-03-01T09:00:00Z", "2026-03-01T11:07:30Z"},
		{"2026-03-01T11:07:30Z", "2026-03-01T12:07:30Z"},
		{"2026-03-01T11:59:00Z", "2026-03-01T12:07:30Z"},
		{"2026-03-03T10:07:31Z", "2026-03-03T11:07:30Z"},
	} {
		if got, ok := sp.Next(anchor, utc(tc.after)); !ok || fmtUTC(got) != tc.want {
			t.Errorf("every 1h from 10:07:30, after %s: %s; want %s", tc.after, fmtUTC(got), tc.want)
		}
	}
}

func TestSpecDue(t *testing.T) {
	every, _ := ParseSpec("every 10m")
	cron, _ := ParseSpec("*/10 * * * *")
	anchor := utc("2026-03-01T10:00:00Z")
	next := utc("2026-03-01T10:10:00Z")
	for _, tc := range []struct {
		at   string
		want int
	}{{"2026-03-01T10:09:59Z", 0}, {"2026-03-01T10:10:00Z", 1}, {"2026-03-01T10:19:59Z", 1}, {"2026-03-01T10:20:00Z", 2}, {"2026-03-01T11:05:00Z", 6}} {
		for name, sp := range map[string]Spec{"every": every, "cron": cron} {
			if got := sp.Due(anchor, next, utc(tc.at)); got != tc.want {
				t.Errorf("%s: slots from 10:10 to %s: %d; want %d", name, tc.at, got, tc.want)
			}
		}
	}
	// A year of minutes is counted, bounded.
	minutely, _ := ParseSpec("* * * * *")
	if got := minutely.Due(0, utc("2026-01-01T00:00:00Z"), utc("2027-01-01T00:00:00Z")); got != maxDue {
		t.Errorf("a year of minutes: %d; want the bound %d", got, maxDue)
	}
}

// FuzzScheduleSpec: any text is parsed or refused with an *InputError,
// never a panic; a parsed spec's next slot is after the time asked,
// stable, a whole minute for cron, and the slot after it comes later.
func FuzzScheduleSpec(f *testing.F) {
	for _, s := range []string{"every 1h", "every 90s", "*/15 * * * *", "0 9 * * 1-5", "0 0 29 2 *", "5-20/5 0,12 1-7 */3 7", "0 0 31 2 *", "* * * * MON"} {
		f.Add(s, int64(1_800_000_000_000_000_000))
	}
	f.Fuzz(func(t *testing.T, s string, after int64) {
		sp, err := ParseSpec(s)
		if err != nil {
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Fatalf("ParseSpec(%q) failed with %T, not an *InputError", s, err)
			}
			return
		}
		if again, _ := ParseSpec(s); again != sp {
			t.Fatalf("ParseSpec(%q) is not stable", s)
		}
		after = after % (290 * 365 * 24 * int64(time.Hour)) // about 1680 to 2260
		anchor := after - int64(time.Hour)
		next, ok := sp.Next(anchor, after)
		if !ok {
			return // a cron date too far off, or outside the span Next computes in
		}
		if next <= after {
			t.Fatalf("%q: next slot %d is not after %d", s, next, after)
		}
		if sp.Every == 0 && next%int64(time.Minute) != 0 {
			t.Fatalf("%q: cron slot %s is not a whole minute", s, fmtUTC(next))
		}
		if again, _ := sp.Next(anchor, after); again != next {
			t.Fatalf("%q: Next is not deterministic", s)
		}
		if later, ok := sp.Next(anchor, next); ok && later <= next {
			t.Fatalf("%q: the slot after %d is %d", s, next, later)
		}
		if d := sp.Due(anchor, next, next); d != 1 {
			t.Fatalf("%q: the slot itself counts %d times", s, d)
		}
	})
}

// schedHarness decides inputs on a State, as the Kernel does.
type schedHarness struct {
	t  *testing.T
	st *State
	n  int
}

func newSchedHarness(t *testing.T) *schedHarness {
	h := &schedHarness{t: t, st: NewState()}
	h.cmd(Command{Kind: CmdThreadCreate, NewThread: "t1", Provider: "builtin", Caps: Capabilities{Steer: true, Interrupt: true}}, utc("2026-03-01T09:00:00Z"))
	return h
}

func (h *schedHarness) do(in Input) ([]Event, []Effect) {
	h.t.Helper()
	evs, effs, rec, err := Decide(h.st, in)
	if err != nil {
		h.t.Fatalf("%+v: %v", in, err)
	}
	if rec != nil && rec.Reject != nil {
		h.t.Fatalf("%s rejected: %s", rec.Kind, rec.Reject.Detail)
	}
	return evs, effs
}

func (h *schedHarness) cmd(c Command, at int64) ([]Event, []Effect) {
	h.n++
	c.ID, c.At = "c"+itoa(h.n), at
	return h.do(Input{Command: &c})
}

func (h *schedHarness) add(s Schedule, at int64) []Effect {
	_, effs := h.cmd(Command{Kind: CmdScheduleAdd, NewSchedule: &s}, at)
	return effs
}

// fires are the cron.fired events among evs.
func fires(evs []Event) []Event {
	var out []Event
	for _, ev := range evs {
		if ev.Type == EvCronFired {
			out = append(out, ev)
		}
	}
	return out
}

func timers(effs []Effect) []Effect {
	var out []Effect
	for _, e := range effs {
		if e.Kind == EffTimer {
			out = append(out, e)
		}
	}
	return out
}

// A TimerFired at a schedule's slot fires it once: one cron.fired, the
// message queued to the thread (as a new run), and a timer for the next
// slot. The same timer again, or one for a slot already fired, does
// nothing; one that comes early by the wall clock waits again.
func TestScheduleTimerFiresOnceAndArmsTheNext(t *testing.T) {
	h := newSchedHarness(t)
	t0 := utc("2026-03-01T10:00:00Z")
	effs := timers(h.add(Schedule{ID: "s1", Spec: "every 1m", Thread: "t1", Text: "check the build"}, t0))
	s := h.st.Schedules["s1"]
	if s == nil || s.NextAt != t0+int64(time.Minute) || s.CreatedAt != t0 {
		t.Fatalf("schedule after add: %+v", s)
	}
	if len(effs) != 1 || effs[0].Deadline != s.NextAt || effs[0].Key != "schedule:s1:"+itoa64(s.NextAt) {
		t.Fatalf("add armed %+v; want one timer at the first slot", effs)
	}
	key := effs[0].Key

	// Early (the wall clock was set back): no fire, the same timer again.
	evs, effs := h.do(Input{Timer: &TimerFired{Key: key, At: s.NextAt - 1}})
	if len(evs) != 0 || len(effs) != 1 || effs[0].Key != key {
		t.Fatalf("an early timer: %d events, effects %+v; want none and the same timer", len(evs), effs)
	}

	at := s.NextAt + int64(20*time.Millisecond)
	evs, effs = h.do(Input{Timer: &TimerFired{Key: key, At: at}})
	fired := fires(evs)
	if len(fired) != 1 {
		t.Fatalf("%d cron.fired events; want 1", len(fired))
	}
	f := fired[0].Payload.Schedule
	if f.Fires != 1 || f.LastAt != at || f.NextAt != t0+2*int64(time.Minute) || f.LastRun != "t1/1" || f.Missed != 0 || fired[0].Thread != "t1" {
		t.Fatalf("the fire: %+v (thread %q)", f, fired[0].Thread)
	}
	if !strings.Contains(fired[0].Payload.Note, "fire 1: message to thread t1 (run 1)") {
		t.Fatalf("the fire's note: %q", fired[0].Payload.Note)
	}
	if r := h.st.Runs["t1/1"]; r == nil || r.Text != "check the build" || len(h.st.RunsOf("t1")) != 1 {
		t.Fatalf("the thread's runs after the fire: %+v", h.st.RunsOf("t1"))
	}
	if tm := timers(effs); len(tm) != 1 || tm[0].Deadline != f.NextAt {
		t.Fatalf("after the fire, timers %+v; want one at the next slot %s", tm, fmtUTC(f.NextAt))
	}
	for _, e := range effs {
		if e.Kind == EffStartTurn && e.Run != "t1/1" {
			t.Fatalf("the fire started %s", e.Run)
		}
	}

	// The same timer once more (a duplicate) is stale.
	if evs, effs := h.do(Input{Timer: &TimerFired{Key: key, At: at + 1}}); len(evs)+len(effs) != 0 {
		t.Fatalf("a stale timer made %d events and %d effects", len(evs), len(effs))
	}
	if h.st.Schedules["s1"].Fires != 1 || len(h.st.RunsOf("t1")) != 1 {
		t.Fatal("a stale timer fired the schedule again")
	}
}

// While the last fire's message still waits in the queue, a fire is
// skipped (journaled, counted) instead of piling up another run.
func TestScheduleSkipsWhileItsLastRunIsQueued(t *testing.T) {
	h := newSchedHarness(t)
	t0 := utc("2026-03-01T10:00:00Z")
	h.add(Schedule{ID: "s1", Spec: "every 1m", Thread: "t1", Text: "ping"}, t0)
	fire := func() []Event {
		s := h.st.Schedules["s1"]
		evs, _ := h.do(Input{Timer: &TimerFired{Key: scheduleTimerKey(s), At: s.NextAt}})
		return fires(evs)
	}
	fire() // run 1 starts at once: the thread was idle
	if r := h.st.Runs["t1/1"]; r.Status != RunRunning {
		t.Fatalf("run 1 is %s", r.Status)
	}
	fire() // run 2 queues behind run 1
	if r := h.st.Runs["t1/2"]; r == nil || r.Status != RunQueued {
		t.Fatalf("run 2: %+v", r)
	}
	f := fire()
	s := h.st.Schedules["s1"]
	if len(f) != 1 || !strings.Contains(f[0].Payload.Note, "skipped: run 2 of the last fire still waits in the queue of thread t1") {
		t.Fatalf("third fire: %+v", f)
	}
	if s.Fires != 2 || s.Skipped != 1 || len(h.st.RunsOf("t1")) != 2 || s.NextAt != t0+4*int64(time.Minute) {
		t.Fatalf("after a skipped fire: %+v, %d runs", s, len(h.st.RunsOf("t1")))
	}
}

// At host start (Recover), a schedule whose slot passed while no host
// ran fires once, whatever the number of slots it missed, and says so;
// one not yet due is armed. A Recover with NoSchedules (a host for one
// read-only command) does neither.
func TestScheduleRecoverFiresMissedSlotsOnce(t *testing.T) {
	h := newSchedHarness(t)
	t0 := utc("2026-03-01T10:00:00Z")
	h.add(Schedule{ID: "s1", Spec: "every 1m", Thread: "t1", Text: "ping"}, t0)
	h.add(Schedule{ID: "s2", Spec: "0 12 * * *", Thread: "t1", Text: "noon"}, t0)
	start := t0 + int64(5*time.Minute+30*time.Second)

	before := h.st.Clone()
	evs, effs := h.do(Input{Recover: &Recover{At: start, NoSchedules: true}})
	if len(evs)+len(effs) != 0 {
		t.Fatalf("a NoSchedules recover made %d events and %d effects", len(evs), len(effs))
	}
	if h.st.Seq != before.Seq {
		t.Fatal("a NoSchedules recover changed the state")
	}

	evs, effs = h.do(Input{Recover: &Recover{At: start}})
	fired := fires(evs)
	if len(fired) != 1 {
		t.Fatalf("%d fires at start; want one for the five slots s1 missed", len(fired))
	}
	s := fired[0].Payload.Schedule
	if s.ID != "s1" || s.Fires != 1 || s.Missed != 5 || s.LastAt != start || s.NextAt != t0+6*int64(time.Minute) {
		t.Fatalf("the fire at start: %+v", s)
	}
	if want := "missed 5 fires while no host ran; fired once at start"; !strings.Contains(fired[0].Payload.Note, want) {
		t.Fatalf("note %q; want it to say %q", fired[0].Payload.Note, want)
	}
	if n := len(h.st.RunsOf("t1")); n != 1 {
		t.Fatalf("%d runs after the start; want 1", n)
	}
	tm := timers(effs)
	if len(tm) != 2 {
		t.Fatalf("timers at start %+v; want s1's next slot and s2's", tm)
	}
	for _, e := range tm {
		want := map[string]int64{"s1": t0 + 6*int64(time.Minute), "s2": utc("2026-03-01T12:00:00Z")}[strings.Split(e.Key, ":")[1]]
		if e.Deadline != want {
			t.Fatalf("timer %s at %s; want %s", e.Key, fmtUTC(e.Deadline), fmtUTC(want))
		}
	}
	// A second start right after has nothing missed to fire.
	if evs, _ := h.do(Input{Recover: &Recover{At: start + 1}}); len(fires(evs)) != 0 {
		t.Fatal("a second start fired again")
	}
}

// A host down for a year fires a minutely schedule once; the count of
// missed slots stops at maxDue and the note says "at least".
func TestScheduleRecoverAfterAYear(t *testing.T) {
	h := newSchedHarness(t)
	t0 := utc("2026-03-01T10:00:30Z")
	h.add(Schedule{ID: "s1", Spec: "* * * * *", Thread: "t1", Text: "ping"}, t0)
	evs, _ := h.do(Input{Recover: &Recover{At: utc("2027-03-01T10:00:30Z")}})
	f := fires(evs)
	if len(f) != 1 || f[0].Payload.Schedule.Missed != maxDue || !strings.Contains(f[0].Payload.Note, "missed at least 100000 fires") ||
		f[0].Payload.Schedule.NextAt != utc("2027-03-01T10:01:00Z") {
		t.Fatalf("after a year: %d fires, %+v", len(f), f)
	}
}

// A mission target starts a mission from the stored shape, with an id
// made from the schedule's and the fire's number; while it works, the
// next fire is skipped. Removing the schedule makes its timer stale.
func TestScheduleMissionAndRemove(t *testing.T) {
	h := newSchedHarness(t)
	t0 := utc("2026-03-01T10:00:00Z")
	tmpl := &Mission{Strategy: StrategyRace, Workspace: "/ws", Repo: "/ws", Base: "abc123", Verify: "true",
		Agents: []MissionAgent{{Name: "builtin", Provider: "builtin"}}, AutoApprove: true}
	h.add(Schedule{ID: "s9", Spec: "*/30 * * * *", Mission: tmpl, Text: "tidy the docs"}, t0)
	s := h.st.Schedules["s9"]
	if s.NextAt != utc("2026-03-01T10:30:00Z") || s.Target() != "mission" {
		t.Fatalf("schedule: %+v", s)
	}
	evs, _ := h.do(Input{Timer: &TimerFired{Key: scheduleTimerKey(s), At: s.NextAt}})
	m := h.st.Missions["s9-m1"]
	if len(fires(evs)) != 1 || m == nil || m.Goal != "tidy the docs" || m.Base != "abc123" || m.Status != MissionRunning || len(m.Tasks) != 1 {
		t.Fatalf("the fire made mission %+v", m)
	}
	if got := h.st.Schedules["s9"]; got.LastMission != "s9-m1" || got.Error != "" {
		t.Fatalf("after the fire: %+v", got)
	}
	s = h.st.Schedules["s9"]
	evs, _ = h.do(Input{Timer: &TimerFired{Key: scheduleTimerKey(s), At: s.NextAt}})
	if f := fires(evs); len(f) != 1 || !strings.Contains(f[0].Payload.Note, "skipped: mission s9-m1 of the last fire has not ended") || h.st.Missions["s9-m2"] != nil {
		t.Fatalf("a fire while the mission works: %+v", f)
	}

	s = h.st.Schedules["s9"]
	h.cmd(Command{Kind: CmdScheduleRemove, Schedule: "s9"}, s.NextAt-1)
	if !h.st.Schedules["s9"].Removed || len(h.st.ScheduleList()) != 0 {
		t.Fatal("the schedule is still listed after its removal")
	}
	if evs, effs := h.do(Input{Timer: &TimerFired{Key: scheduleTimerKey(s), At: s.NextAt}}); len(evs)+len(effs) != 0 {
		t.Fatal("a removed schedule fired")
	}
}

// A fire that cannot do its work (the thread was archived since) is
// journaled with the reason, and the schedule goes on.
func TestScheduleFireIntoArchivedThread(t *testing.T) {
	h := newSchedHarness(t)
	t0 := utc("2026-03-01T10:00:00Z")
	h.add(Schedule{ID: "s1", Spec: "every 1m", Thread: "t1", Text: "ping"}, t0)
	h.cmd(Command{Kind: CmdThreadArchive, Thread: "t1"}, t0+1)
	s := h.st.Schedules["s1"]
	_, effs := h.do(Input{Timer: &TimerFired{Key: scheduleTimerKey(s), At: s.NextAt}})
	s = h.st.Schedules["s1"]
	if s.Error != "thread t1 is archived" || s.LastRun != "" || s.Fires != 1 || len(timers(effs)) != 1 {
		t.Fatalf("after a fire into an archived thread: %+v, effects %+v", s, effs)
	}
}

func TestScheduleCommandsRefused(t *testing.T) {
	h := newSchedHarness(t)
	at := utc("2026-03-01T10:00:00Z")
	ok := Schedule{ID: "s1", Spec: "every 1h", Thread: "t1", Text: "hi"}
	h.add(ok, at)
	for _, tc := range []struct {
		name string
		c    Command
		why  string
	}{
		{"no schedule", Command{Kind: CmdScheduleAdd}, "needs the schedule"},
		{"bad id", Command{Kind: CmdScheduleAdd, NewSchedule: &Schedule{ID: "a/b", Spec: "every 1h", Thread: "t1", Text: "x"}}, "schedule id"},
		{"bad spec", Command{Kind: CmdScheduleAdd, NewSchedule: &Schedule{ID: "s2", Spec: "hourly", Thread: "t1", Text: "x"}}, SpecHelp},
		{"never", Command{Kind: CmdScheduleAdd, NewSchedule: &Schedule{ID: "s2", Spec: "0 0 31 2 *", Thread: "t1", Text: "x"}}, "no month has such a day"},
		{"no target", Command{Kind: CmdScheduleAdd, NewSchedule: &Schedule{ID: "s2", Spec: "every 1h", Text: "x"}}, "needs a target"},
		{"two targets", Command{Kind: CmdScheduleAdd, NewSchedule: &Schedule{ID: "s2", Spec: "every 1h", Thread: "t1", Text: "x", Mission: &Mission{}}}, "not both"},
		{"empty text", Command{Kind: CmdScheduleAdd, NewSchedule: &Schedule{ID: "s2", Spec: "every 1h", Thread: "t1", Text: " "}}, "empty"},
		{"unknown thread", Command{Kind: CmdScheduleAdd, NewSchedule: &Schedule{ID: "s2", Spec: "every 1h", Thread: "t9", Text: "x"}}, "unknown thread"},
		{"bad mission", Command{Kind: CmdScheduleAdd, NewSchedule: &Schedule{ID: "s2", Spec: "every 1h", Text: "x", Mission: &Mission{Strategy: "race"}}}, "agents"},
		{"taken id", Command{Kind: CmdScheduleAdd, NewSchedule: &ok}, "already exists"},
		{"remove unknown", Command{Kind: CmdScheduleRemove, Schedule: "s7"}, "unknown schedule"},
		{"remove nothing", Command{Kind: CmdScheduleRemove}, "needs a schedule id"},
	} {
		c := tc.c
		c.ID, c.At = "x-"+tc.name, at
		seq := h.st.Seq
		_, _, _, err := Decide(h.st, Input{Command: &c})
		var ie *InputError
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), tc.why) {
			t.Errorf("%s: %v; want a refusal that says %q", tc.name, err, tc.why)
		}
		if h.st.Seq != seq {
			t.Errorf("%s: a refused command journaled something", tc.name)
		}
	}
}

// The Runner refuses an interval under its MinScheduleEvery (a minute
// by default) at the edge; a host told otherwise takes it.
func TestRunnerScheduleFloor(t *testing.T) {
	for _, tc := range []struct {
		least time.Duration
		spec  string
		ok    bool
	}{{0, "every 30s", false}, {0, "every 1m", true}, {0, "* * * * *", true}, {time.Second, "every 2s", true}} {
		r, stop := runWith(t, RunnerConfig{Journal: &MemJournal{}, MinScheduleEvery: tc.least})
		newThread(t, r, "t1")
		_, err := r.Submit(context.Background(), Command{Kind: CmdScheduleAdd, NewSchedule: &Schedule{ID: "s1", Spec: tc.spec, Thread: "t1", Text: "hi"}})
		if tc.ok != (err == nil) || (err != nil && !strings.Contains(err.Error(), "fires too often: this host takes every 1m0s or more")) {
			t.Errorf("floor %v, %q: %v", tc.least, tc.spec, err)
		}
		stop()
	}
}

// A schedule's timer is an effect's outcome: when the append of its
// fire fails (a full disk), the fire is held and made once appends work.
func TestRunnerHoldsAScheduleFireAcrossAFullDisk(t *testing.T) {
	j := &fullJournal{MemJournal: &MemJournal{}}
	r, stop := runWith(t, RunnerConfig{Journal: j, RetryEvery: 10 * time.Millisecond, MinScheduleEvery: time.Second})
	defer stop()
	ctx := context.Background()
	newThread(t, r, "t1")
	sub, err := r.Subscribe(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Submit(ctx, Command{Kind: CmdScheduleAdd, NewSchedule: &Schedule{ID: "s1", Spec: "every 1s", Thread: "t1", Text: "hi"}}); err != nil {
		t.Fatal(err)
	}
	j.setFull(true)
	awaitEvent(t, sub, "the stalled notice", func(ev Event) bool { return ev.Type == EvJournalStalled })
	j.setFull(false)
	ev := awaitEvent(t, sub, "the fire", func(ev Event) bool { return ev.Type == EvCronFired })
	if ev.Payload.Schedule.Fires != 1 {
		t.Fatalf("the held fire: %+v", ev.Payload.Schedule)
	}
	if j.refused == 0 {
		t.Fatal("the journal never refused an append: the test proves nothing")
	}
}

func itoa64(n int64) string { return strconv.FormatInt(n, 10) }
