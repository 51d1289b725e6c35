package core

import (
	"fmt"
	"strconv"
	"strings"
)

// Schedule commands (doc.go, "Schedules").
const (
	// CmdScheduleAdd adds NewSchedule, as the edge resolved it.
	CmdScheduleAdd CommandKind = "schedule.add"
	// CmdScheduleRemove removes the schedule named Schedule.
	CmdScheduleRemove CommandKind = "schedule.remove"
)

// scheduleTimerPrefix starts the key of a schedule's timer:
// "schedule:<id>:<NextAt>". A timer whose NextAt is no longer the
// schedule's (it fired, or was removed) is stale and does nothing.
const scheduleTimerPrefix = "schedule:"

func scheduleTimerKey(s *Schedule) string {
	return scheduleTimerPrefix + s.ID + ":" + strconv.FormatInt(s.NextAt, 10)
}

func (t *tx) putSchedule(typ EventType, s *Schedule, note string) {
	s.UpdatedAt = t.at
	t.emit(typ, Event{Thread: s.Thread, Payload: Payload{Schedule: s, Note: note}})
}

// armSchedule asks the Runner for a TimerFired at the schedule's next
// slot. Timers are not journaled: the Recover pass arms them again.
func (t *tx) armSchedule(s *Schedule) {
	if s.Removed || s.NextAt == 0 {
		return
	}
	t.effects = append(t.effects, Effect{Key: scheduleTimerKey(s), Kind: EffTimer, Thread: s.Thread, Deadline: s.NextAt})
}

func (t *tx) addSchedule(c *Command) *Rejection {
	s := c.NewSchedule.Clone()
	if s.Thread != "" && t.st.Threads[s.Thread].Archived {
		return reject(ReasonInvalidState, "thread %s is archived: a schedule sends to a thread that takes messages", s.Thread)
	}
	sp, _ := ParseSpec(s.Spec) // Validate parsed it
	s.NextAt, _ = sp.Next(c.At, c.At)
	s.CreatedAt, s.LastAt, s.Fires, s.Missed, s.Skipped = c.At, 0, 0, 0, 0
	s.LastRun, s.LastMission, s.Error, s.Removed = "", "", "", false
	t.putSchedule(EvScheduleUpdated, s, "")
	t.armSchedule(s)
	return nil
}

func (t *tx) removeSchedule(c *Command) *Rejection {
	s := t.st.Schedules[c.Schedule].Clone()
	s.Removed = true
	t.putSchedule(EvScheduleUpdated, s, "")
	return nil
}

// scheduleTimer handles a schedule's TimerFired; false when key is not
// a schedule's.
func (t *tx) scheduleTimer(key string) bool {
	rest, ok := strings.CutPrefix(key, scheduleTimerPrefix)
	if !ok {
		return false
	}
	i := strings.LastIndexByte(rest, ':')
	if i < 0 {
		return true
	}
	s := t.st.Schedules[rest[:i]]
	if s == nil || s.Removed || s.NextAt == 0 || strconv.FormatInt(s.NextAt, 10) != rest[i+1:] {
		return true // stale: fired already, or removed
	}
	if t.at < s.NextAt {
		// Early by the wall clock (it was set back): wait again.
		t.armSchedule(s)
		return true
	}
	t.fireSchedule(s, false)
	return true
}

// recoverSchedules runs at host start: a schedule whose next slot passed
// while no host ran fires once, whatever the number of slots it missed;
// the others are armed.
func (t *tx) recoverSchedules() {
	for _, id := range sortedKeys(t.st.Schedules) {
		s := t.st.Schedules[id]
		switch {
		case s.Removed || s.NextAt == 0:
		case t.at < s.NextAt:
			t.armSchedule(s)
		default:
			t.fireSchedule(s, true)
		}
	}
}

// fireSchedule fires a due schedule once: cron.fired, then the work (a
// message queued to the thread, or a new mission), then the timer for
// the slot after now. atStart: the host just started, so every slot
// that came due was missed while no host ran.
func (t *tx) fireSchedule(s *Schedule, atStart bool) {
	sp, err := ParseSpec(s.Spec)
	if err != nil {
		return // unreachable: the spec was parsed when it was added
	}
	due := sp.Due(s.CreatedAt, s.NextAt, t.at)
	c := s.Clone()
	c.LastAt, c.Error = t.at, ""
	c.NextAt, _ = sp.Next(s.CreatedAt, t.at)
	var notes []string
	switch {
	case atStart:
		c.Missed += due
		missed := plural(due, "fire")
		if due >= maxDue {
			missed = "at least " + missed // Due stops counting there
		}
		notes = append(notes, fmt.Sprintf("missed %s while no host ran; fired once at start", missed))
	case due > 1:
		// The host was held up (a suspended machine): one fire stands
		// for the slots that passed.
		c.Missed += due - 1
		notes = append(notes, fmt.Sprintf("%d slots came due at once (the host was held up); fired once", due))
	}
	if why := t.scheduleBusy(s); why != "" {
		c.Skipped++
		t.putSchedule(EvCronFired, c, strings.Join(append(notes, "skipped: "+why), "; "))
		t.armSchedule(c)
		return
	}
	c.Fires++
	if c.Mission != nil {
		c.LastMission = ScheduleMissionID(c.ID, c.Fires)
		notes = append(notes, fmt.Sprintf("fire %d: mission %s", c.Fires, c.LastMission))
	} else if th := t.st.Threads[c.Thread]; th != nil {
		// message.send in queue mode always makes the thread's next run.
		c.LastRun = RunID(th.ID, th.Runs+1)
		notes = append(notes, fmt.Sprintf("fire %d: message to thread %s (run %d)", c.Fires, th.ID, th.Runs+1))
	}
	t.putSchedule(EvCronFired, c, strings.Join(notes, "; "))
	want := c.LastRun
	if c.Mission != nil {
		want = c.LastMission
	}
	if work, why := t.scheduleWork(c); why != "" || work != want {
		c = c.Clone()
		c.LastRun, c.LastMission, c.Error = "", "", why
		if c.Mission != nil {
			c.LastMission = work
		} else {
			c.LastRun = work
		}
		t.putSchedule(EvScheduleUpdated, c, "")
	}
	t.armSchedule(c)
}

// scheduleBusy says why a fire is skipped: the last fire's message still
// waits in its thread's queue, or its mission has not ended. A schedule
// does not pile work up behind work that has not begun.
func (t *tx) scheduleBusy(s *Schedule) string {
	if r := t.st.Runs[s.LastRun]; s.LastRun != "" && r != nil && r.Status == RunQueued {
		return fmt.Sprintf("run %d of the last fire still waits in the queue of thread %s", r.Ordinal, r.Thread)
	}
	if m := t.st.Missions[s.LastMission]; s.LastMission != "" && m != nil && !m.Done() {
		return fmt.Sprintf("mission %s of the last fire has not ended (%s)", m.ID, m.Status)
	}
	return ""
}

// scheduleWork does a fire's work in this pass and returns the run or
// mission it made, or why it could not.
func (t *tx) scheduleWork(s *Schedule) (string, string) {
	if s.Mission != nil {
		cmd := scheduledMission(s, s.Fires)
		cmd.At = t.at
		if err := cmd.validateMission(); err != nil {
			return "", err.Error()
		}
		if err := missionRefs(t.st, cmd); err != nil {
			return "", err.Error()
		}
		if rej := t.inner(func() *Rejection { return t.createMission(cmd) }); rej != nil {
			return "", rej.Detail
		}
		return cmd.NewMission.ID, ""
	}
	if t.st.Threads[s.Thread] == nil {
		return "", "thread " + s.Thread + " does not exist"
	}
	run := ""
	rej := t.inner(func() *Rejection {
		rej := t.send(&Command{Thread: s.Thread, Text: s.Text, Mode: ModeQueue, At: t.at})
		run = t.receipt.Run
		return rej
	})
	if rej != nil {
		return "", rej.Detail
	}
	return run, ""
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}
