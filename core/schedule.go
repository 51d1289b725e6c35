package core

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Schedule sends a message to a thread, or starts a mission, whenever
// its spec comes due (doc.go, "Schedules"). It travels whole in every
// schedule.updated and cron.fired event.
//
// Invariant: NextAt is the first slot of Spec after the schedule's last
// fire (or its creation) that has not fired; 0 when the spec has no slot
// left. A removed schedule stays in the State, marked Removed, so the
// journal's fires still name it.
type Schedule struct {
	ID string `json:"id" msgpack:"id"`
	// Spec is "every D" or a 5-field cron expression in UTC (ParseSpec).
	Spec string `json:"spec" msgpack:"sp"`
	// Thread is the thread a fire sends Text to; "" for a mission
	// target.
	Thread string `json:"thread,omitempty" msgpack:"th,omitempty"`
	// Mission is the mission a fire starts, as the edge resolved it
	// when the schedule was added (workspace, repository and base
	// commit, agents, verification): a fire copies it with the id
	// ScheduleMissionID and Text as its goal. Its ID and Goal are empty.
	Mission *Mission `json:"mission,omitempty" msgpack:"mi,omitempty"`
	// Text is the message, or the mission's goal.
	Text string `json:"text" msgpack:"tx"`
	// NextAt is when it fires next, LastAt when it last fired (unix
	// nanos).
	NextAt int64 `json:"nextAt" msgpack:"nx"`
	LastAt int64 `json:"lastAt,omitempty" msgpack:"la,omitempty"`
	// Fires counts the fires that sent their message or started their
	// mission; Skipped those that did not because the last fire's work
	// had not begun (a run still queued) or ended (a mission); Missed
	// the slots that came due while no host ran (each such set fired
	// once, at the next host's start).
	Fires   int `json:"fires" msgpack:"n"`
	Missed  int `json:"missed,omitempty" msgpack:"ms,omitempty"`
	Skipped int `json:"skipped,omitempty" msgpack:"sk,omitempty"`
	// LastRun and LastMission are the work of the latest fire.
	LastRun     string `json:"lastRun,omitempty" msgpack:"lr,omitempty"`
	LastMission string `json:"lastMission,omitempty" msgpack:"lm,omitempty"`
	// Error is why the latest fire could not do its work ("" when it
	// did).
	Error     string `json:"error,omitempty" msgpack:"er,omitempty"`
	Removed   bool   `json:"removed,omitempty" msgpack:"rm,omitempty"`
	CreatedAt int64  `json:"createdAt" msgpack:"ct"`
	UpdatedAt int64  `json:"updatedAt" msgpack:"ut"`
}

// Event types of schedules. Part of the on-disk format.
const (
	// EvScheduleUpdated carries a schedule, whole: added, removed, or
	// its latest fire's outcome.
	EvScheduleUpdated EventType = "schedule.updated"
	// EvCronFired records a fire: the schedule whole as the fire left
	// it (LastAt, NextAt, the counts), the target thread in the
	// envelope, and a Note saying what it did (a fire at host start
	// says how many slots it stands for).
	EvCronFired EventType = "cron.fired"
)

// Limits of a schedule, enforced at the edge.
const (
	// MinEvery is the shortest "every" the kernel takes; the Runner
	// refuses one under RunnerConfig.MinScheduleEvery (a minute unless
	// the host is told otherwise).
	MinEvery = time.Second
	// MaxEvery is the longest: a year.
	MaxEvery = 366 * 24 * time.Hour
	// DefaultMinScheduleEvery is RunnerConfig.MinScheduleEvery's
	// default.
	DefaultMinScheduleEvery = time.Minute
	// MaxScheduleIDBytes bounds a schedule id (its missions' ids derive
	// from it).
	MaxScheduleIDBytes = 24
	// maxDue bounds how many missed slots a fire counts.
	maxDue = 100000
)

// SpecHelp says what a valid spec looks like; every refusal of a spec
// ends with it.
const SpecHelp = `use "every D" with a Go duration of at least 1m (such as "every 1h" or "every 90m"), ` +
	`or a cron expression of 5 fields, minute hour day-of-month month day-of-week, in UTC (such as "*/15 * * * *" or "0 9 * * 1-5")`

// Spec is a parsed schedule spec: an interval (Every) or a cron
// expression (the bit sets of the minutes, hours, days of the month,
// months and days of the week it matches).
type Spec struct {
	Every                      time.Duration
	min, hour, dom, month, dow uint64
	// domStar and dowStar: the field begins with "*". When neither
	// does, a day matches if its day of the month or its day of the
	// week does, as in cron; otherwise both must.
	domStar, dowStar bool
}

// ParseSpec reads "every D" (a Go duration, MinEvery to MaxEvery, in
// whole seconds) or a cron expression of five fields separated by
// spaces: minute (0-59), hour (0-23), day of the month (1-31), month
// (1-12), day of the week (0-7, 0 and 7 are Sunday). A field is a list
// (a,b) of numbers, "*", ranges a-b, and steps */n or a-b/n. Times are
// UTC. A refusal is an *InputError that says what is wrong and what a
// valid spec looks like.
func ParseSpec(s string) (Spec, error) {
	f := strings.Fields(s)
	bad := func(format string, args ...any) (Spec, error) {
		return Spec{}, refuse("schedule %.60q: %s; %s", s, fmt.Sprintf(format, args...), SpecHelp)
	}
	if len(s) > 200 || !utf8.ValidString(s) {
		return bad("too long, or not UTF-8")
	}
	if len(f) > 0 && strings.EqualFold(f[0], "every") {
		if len(f) != 2 {
			return bad("\"every\" takes one duration")
		}
		d, err := time.ParseDuration(f[1])
		switch {
		case err != nil:
			return bad("%q is not a duration", f[1])
		case d < MinEvery || d > MaxEvery:
			return bad("%v is out of range (%v to %v)", d, MinEvery, MaxEvery)
		case d%time.Second != 0:
			return bad("%v is not a whole number of seconds", d)
		}
		return Spec{Every: d}, nil
	}
	if len(f) != 5 {
		return bad("a cron expression has 5 fields, this has %d", len(f))
	}
	var sp Spec
	var err error
	fields := []struct {
		name   string
		lo, hi int
		set    *uint64
	}{{"minute", 0, 59, &sp.min}, {"hour", 0, 23, &sp.hour}, {"day of the month", 1, 31, &sp.dom},
		{"month", 1, 12, &sp.month}, {"day of the week", 0, 7, &sp.dow}}
	for i, fd := range fields {
		if *fd.set, err = parseField(f[i], fd.lo, fd.hi); err != nil {
			return bad("the %s field %q: %v", fd.name, f[i], err)
		}
	}
	if sp.dow&(1<<7) != 0 {
		sp.dow = sp.dow&^(1<<7) | 1 // 7 is Sunday too
	}
	sp.domStar, sp.dowStar = strings.HasPrefix(f[2], "*"), strings.HasPrefix(f[4], "*")
	if sp.dowStar && !sp.domStar && !sp.anyDate() {
		return bad("no month has such a day")
	}
	return sp, nil
}

// parseField reads one cron field into a bit set of the values in
// lo..hi it names.
func parseField(f string, lo, hi int) (uint64, error) {
	var set uint64
	for _, part := range strings.Split(f, ",") {
		rng, stepText, stepped := strings.Cut(part, "/")
		a, b := lo, hi
		switch x, y, isRange := strings.Cut(rng, "-"); {
		case rng == "*":
		case isRange:
			var err error
			if a, err = fieldNumber(x, lo, hi); err != nil {
				return 0, err
			}
			if b, err = fieldNumber(y, lo, hi); err != nil {
				return 0, err
			}
			if a > b {
				return 0, fmt.Errorf("the range %s runs backwards", rng)
			}
		default:
			n, err := fieldNumber(rng, lo, hi)
			if err != nil {
				return 0, err
			}
			if stepped {
				return 0, fmt.Errorf("a step follows * or a range a-b, not %s", rng)
			}
			a, b = n, n
		}
		step := 1
		if stepped {
			n, err := strconv.Atoi(stepText)
			if err != nil || n < 1 || n > hi || strings.Trim(stepText, "0123456789") != "" {
				return 0, fmt.Errorf("the step %q is not a number from 1 to %d", stepText, hi)
			}
			step = n
		}
		for i := a; i <= b; i += step {
			set |= 1 << uint(i)
		}
	}
	return set, nil
}

func fieldNumber(s string, lo, hi int) (int, error) {
	switch {
	case s == "":
		return 0, fmt.Errorf("a number is missing")
	case len(s) > 2 || strings.Trim(s, "0123456789") != "":
		return 0, fmt.Errorf("%.20q is not a number from %d to %d (names such as MON are not taken)", s, lo, hi)
	}
	n, _ := strconv.Atoi(s)
	if n < lo || n > hi {
		return 0, fmt.Errorf("%d is not from %d to %d", n, lo, hi)
	}
	return n, nil
}

// daysIn is the most days a month has (February: 29).
var daysIn = [13]int{0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}

// anyDate reports whether some month of the spec has one of its days of
// the month.
func (sp Spec) anyDate() bool {
	for m := 1; m <= 12; m++ {
		if sp.month&(1<<uint(m)) == 0 {
			continue
		}
		for d := 1; d <= daysIn[m]; d++ {
			if sp.dom&(1<<uint(d)) != 0 {
				return true
			}
		}
	}
	return false
}

// specHorizon is how far ahead Next looks for a cron slot: every
// weekday falls on every date within 28 years (the Gregorian calendar
// repeats its weekdays in that cycle, century years aside).
const specHorizon = 30

// Next returns the spec's first slot strictly after after (unix nanos),
// and false when there is none. An interval's slots are anchor + k*Every
// for k >= 1 (anchor: when the schedule was added), so a late fire does
// not shift the ones after it; a cron expression's are the minutes it
// matches, in UTC. Next reads no clock.
func (sp Spec) Next(anchor, after int64) (int64, bool) {
	if sp.Every > 0 {
		d := int64(sp.Every)
		k := int64(1)
		if after >= anchor {
			k = (after-anchor)/d + 1
		}
		return anchor + k*d, true
	}
	if after < minSpecTime || after > maxSpecTime {
		return 0, false
	}
	t := time.Unix(0, after).UTC().Truncate(time.Minute).Add(time.Minute)
	limit := t.Year() + specHorizon
	for t.Year() <= limit {
		switch {
		case sp.month&(1<<uint(t.Month())) == 0:
			t = time.Date(t.Year(), t.Month()+1, 1, 0, 0, 0, 0, time.UTC)
		case !sp.dayMatches(t):
			t = time.Date(t.Year(), t.Month(), t.Day()+1, 0, 0, 0, 0, time.UTC)
		case sp.hour&(1<<uint(t.Hour())) == 0:
			t = t.Truncate(time.Hour).Add(time.Hour)
		case sp.min&(1<<uint(t.Minute())) == 0:
			t = t.Add(time.Minute)
		default:
			if n := t.UnixNano(); n > after && n <= maxSpecTime {
				return n, true
			}
			return 0, false
		}
	}
	return 0, false
}

// The span of times a cron spec computes in: unix nanos stay exact well
// inside it (year 1700 to 2200).
var (
	minSpecTime = time.Date(1700, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano()
	maxSpecTime = time.Date(2200, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano()
)

func (sp Spec) dayMatches(t time.Time) bool {
	dom := sp.dom&(1<<uint(t.Day())) != 0
	dow := sp.dow&(1<<uint(t.Weekday())) != 0
	if sp.domStar || sp.dowStar {
		return dom && dow
	}
	return dom || dow
}

// Due counts the slots from next (a slot) to at, both included: 0 when
// at is before next; at most maxDue.
func (sp Spec) Due(anchor, next, at int64) int {
	if at < next || next == 0 {
		return 0
	}
	if sp.Every > 0 {
		return int(min((at-next)/int64(sp.Every)+1, maxDue))
	}
	n := 0
	for ok := true; ok && next <= at && n < maxDue; n++ {
		next, ok = sp.Next(anchor, next)
	}
	return n
}

// ScheduleMissionID is the id of the mission a schedule's nth fire
// starts: deterministic, so a replay names the same mission.
func ScheduleMissionID(schedule string, n int) string { return schedule + "-m" + strconv.Itoa(n) }

// Target is the schedule's thread, or "mission".
func (s *Schedule) Target() string {
	if s.Mission != nil {
		return "mission"
	}
	return s.Thread
}

// Clone returns a deep copy.
func (s *Schedule) Clone() *Schedule {
	c := *s
	if s.Mission != nil {
		c.Mission = s.Mission.Clone()
	}
	return &c
}

// ScheduleList returns the schedules not removed, oldest first.
func (st *State) ScheduleList() []*Schedule {
	var out []*Schedule
	for _, s := range st.Schedules {
		if !s.Removed {
			out = append(out, s)
		}
	}
	slices.SortFunc(out, func(a, b *Schedule) int {
		if a.CreatedAt != b.CreatedAt {
			if a.CreatedAt < b.CreatedAt {
				return -1
			}
			return 1
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out
}

// validScheduleID: 1..MaxScheduleIDBytes ASCII letters, digits, - or _.
func validScheduleID(id string) bool {
	if id == "" || len(id) > MaxScheduleIDBytes {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// validateSchedule checks the shape of the schedule commands.
func (c *Command) validateSchedule() error {
	if c.Kind == CmdScheduleRemove {
		if c.Schedule == "" || len(c.Schedule) > MaxIDBytes || !utf8.ValidString(c.Schedule) {
			return refuse("schedule.remove needs a schedule id: list schedules with `nexus schedule list`")
		}
		return nil
	}
	s := c.NewSchedule
	if s == nil {
		return refuse("schedule.add needs the schedule")
	}
	if !validScheduleID(s.ID) {
		return refuse("schedule id %.40q is not valid: use 1 to %d letters, digits, - or _", s.ID, MaxScheduleIDBytes)
	}
	sp, err := ParseSpec(s.Spec)
	if err != nil {
		return err
	}
	if _, ok := sp.Next(c.At, c.At); !ok {
		return refuse("schedule %.60q never fires: no date in the next %d years matches it; %s", s.Spec, specHorizon, SpecHelp)
	}
	switch {
	case s.Thread == "" && s.Mission == nil:
		return refuse("a schedule needs a target: a thread to send its text to, or a mission to start")
	case s.Thread != "" && s.Mission != nil:
		return refuse("a schedule targets a thread or a mission, not both")
	case len(s.Thread) > MaxIDBytes || !utf8.ValidString(s.Thread):
		return refuse("id %.40q is not a valid thread id", s.Thread)
	}
	if err := checkText(s.Text); err != nil {
		return err
	}
	if s.Mission != nil {
		return scheduledMission(s, 1).validateMission()
	}
	return nil
}

// scheduledMission is the mission.create of a schedule's nth fire.
func scheduledMission(s *Schedule, n int) *Command {
	m := s.Mission.Clone()
	m.ID, m.Goal = ScheduleMissionID(s.ID, n), s.Text
	return &Command{Kind: CmdMissionCreate, NewMission: m}
}

// scheduleRefs refuses schedule commands that name schedules, threads
// or agents that do not exist (or a schedule that exists already).
func scheduleRefs(st *State, c *Command) error {
	if c.Kind == CmdScheduleRemove {
		if s := st.Schedules[c.Schedule]; s == nil || s.Removed {
			return refuse("unknown schedule %q: list schedules with `nexus schedule list`", c.Schedule)
		}
		return nil
	}
	s := c.NewSchedule
	if st.Schedules[s.ID] != nil {
		return refuse("schedule %s already exists", s.ID)
	}
	if s.Mission != nil {
		return missionRefs(st, scheduledMission(s, 1))
	}
	if st.Threads[s.Thread] == nil {
		return refuse("unknown thread %q: list threads with `nexus thread list`", s.Thread)
	}
	return nil
}
