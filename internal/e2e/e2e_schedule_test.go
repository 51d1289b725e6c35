package e2e

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/internal/cli"
)

// scheduleEnv is a background env whose host takes schedules that fire
// every few seconds (NEXUS_SCHEDULE_MIN_EVERY, a tuning knob), so no
// test waits minutes.
func scheduleEnv(t *testing.T) *env {
	e := backgroundEnv(t, "1m")
	e.extra = append(e.extra, "NEXUS_SCHEDULE_MIN_EVERY=1s")
	return e
}

// schedule is the schedule's entry in `schedule list --json` (nil once
// removed).
func (e *env) schedule(id string) *cli.ScheduleView {
	e.t.Helper()
	var list []cli.ScheduleView
	if err := json.Unmarshal([]byte(e.must("schedule", "list", "--json")), &list); err != nil {
		e.t.Fatal(err)
	}
	for i := range list {
		if list[i].ID == id {
			return &list[i]
		}
	}
	return nil
}

// cronFires are the journal's cron.fired events of a schedule, in order.
func (e *env) cronFires(id string) []core.Event {
	e.t.Helper()
	var out []core.Event
	for _, line := range strings.Split(e.must("log", "--json"), "\n") {
		var ev core.Event
		if json.Unmarshal([]byte(line), &ev) == nil && ev.Type == core.EvCronFired && ev.Payload.Schedule != nil && ev.Payload.Schedule.ID == id {
			out = append(out, ev)
		}
	}
	return out
}

// A schedule fires while the background host runs (which stays for
// it), each fire a run of its thread; killed with SIGKILL, the host
// misses slots; a command that only reads hosts itself and fires
// nothing; the next host that serves fires the schedule once for all
// the slots it missed, says so, and goes on firing on time. Removed, it
// fires no more and the host no longer counts it.
func TestScheduleFiresAndCatchesUpOnce(t *testing.T) {
	t.Parallel()
	e := scheduleEnv(t)
	th := e.must("thread", "new", "--title", "ticker", "--yes")
	slow := e.run("schedule", "add", "every 30s", th, "x")
	if slow.code != 0 {
		t.Fatalf("every 30s under a 1s floor: exit %d %s", slow.code, slow.err)
	}
	id := e.must("schedule", "add", "every 1s", "ticker", "list the files")
	eventually(t, "two fires", func() bool { return e.schedule(id).Fires >= 2 })
	var st struct {
		Live struct{ Schedules int } `json:"live"`
	}
	if err := json.Unmarshal([]byte(e.must("host", "status", "--json")), &st); err != nil || st.Live.Schedules != 2 {
		t.Fatalf("host status counts %d schedules (%v); want 2", st.Live.Schedules, err)
	}
	for _, r := range e.show(th).Runs {
		if r.Text != "list the files" {
			t.Fatalf("run %d of the scheduled thread says %q", r.Ordinal, r.Text)
		}
	}

	pid := e.servingPID()
	if pid == 0 {
		t.Fatal("no background host serves the schedules")
	}
	syscall.Kill(pid, syscall.SIGKILL)
	eventually(t, "the host to be gone", func() bool { return syscall.Kill(pid, 0) != nil })
	atKill := e.schedule(id)    // read by a private host of this command
	time.Sleep(3 * time.Second) // at least two slots pass with no host
	if again := e.schedule(id); again.Fires != atKill.Fires || again.Skipped != atKill.Skipped || again.Missed != atKill.Missed {
		t.Fatalf("a read-only command's host fired the schedule: %+v, then %+v", atKill, again)
	}
	// Each cron.fired either fired or skipped (`log` would start a host).
	before := atKill.Fires + atKill.Skipped

	e.must("thread", "new", "--title", "wake") // starts a background host
	var missed core.Event
	eventually(t, "the fire at start", func() bool {
		fires := e.cronFires(id)
		if len(fires) <= before {
			return false
		}
		missed = fires[before]
		return true
	})
	note, s := missed.Payload.Note, missed.Payload.Schedule
	if !strings.Contains(note, "while no host ran; fired once at start") || s.Missed-atKill.Missed < 2 {
		t.Fatalf("the fire at start: %q, missed %d (was %d)", note, s.Missed, atKill.Missed)
	}
	if s.Fires+s.Skipped != atKill.Fires+atKill.Skipped+1 {
		t.Fatalf("the start fired %d times for the missed slots; want once", s.Fires+s.Skipped-atKill.Fires-atKill.Skipped)
	}
	// Once: nothing else fired in the recovery pass, and the next fire
	// waits for the next slot.
	eventually(t, "a fire on time after the start", func() bool { return len(e.cronFires(id)) > before+1 })
	fires := e.cronFires(id)
	for _, f := range fires[before+1:] {
		if f.At == missed.At || f.At < s.NextAt || strings.Contains(f.Payload.Note, "while no host ran") {
			t.Fatalf("a second fire for the missed slots: %+v after %+v", f.Payload, missed.Payload)
		}
	}

	e.must("schedule", "remove", id)
	if e.schedule(id) != nil {
		t.Fatal("the removed schedule is still listed")
	}
	n := len(e.cronFires(id))
	e.must("schedule", "remove", strings.TrimSpace(slow.out))
	st.Live.Schedules = 0 // absent when none
	if err := json.Unmarshal([]byte(e.must("host", "status", "--json")), &st); err != nil || st.Live.Schedules != 0 {
		t.Fatalf("host status counts %d schedules after their removal", st.Live.Schedules)
	}
	// A slot of the removed schedule passes: no fire (its timer is stale).
	time.Sleep(1500 * time.Millisecond)
	if got := len(e.cronFires(id)); got != n {
		t.Fatalf("the removed schedule fired %d more times", got-n)
	}
}

// A schedule whose target is `mission` starts a mission from the shape
// `mission new`'s flags gave it, its id made from the schedule's.
func TestScheduleStartsAMission(t *testing.T) {
	t.Parallel()
	e := scheduleEnv(t)
	e.gitInit()
	id := e.must("schedule", "add", "every 2s", "mission", "write hello to a.txt",
		"--strategy", "race", "--verify", "test -f a.txt", "--yes")
	eventually(t, "the first fire", func() bool { return e.schedule(id).LastMission != "" })
	e.must("schedule", "remove", id)
	mid := id + "-m1"
	eventually(t, "the mission to end", func() bool {
		var v cli.MissionView
		return json.Unmarshal([]byte(e.must("mission", "show", mid, "--json")), &v) == nil && v.Status != string(core.MissionRunning) &&
			v.Status != string(core.MissionVerifying) && v.Status != string(core.MissionConverging)
	})
	m := e.mission(mid)
	if m.Status != string(core.MissionCompleted) || m.Goal != "write hello to a.txt" || m.Strategy != "race" || m.Verify != "test -f a.txt" {
		t.Fatalf("the scheduled mission: %+v", m)
	}
	if got := readFile(t, filepath.Join(e.ws, "a.txt")); got != "hello\n" {
		t.Fatalf("a.txt: %q", got)
	}
}
