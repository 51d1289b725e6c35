package core

// Notice kinds: the moments a person wants to be told about, whether or
// not they are looking (the UI's bell and desktop notification, the
// host's notify command, `nexus log --json`).
const (
	NoticeWaiting  = "waiting"  // a run started waiting on an approval or a question
	NoticeFailed   = "failed"   // a run failed
	NoticeFinished = "finished" // a run completed
)

// NoticeKinds are the notice kinds, in the order they are documented.
var NoticeKinds = []string{NoticeWaiting, NoticeFailed, NoticeFinished}

// Notice is a journaled event a person wants to be told about. It is
// derived, never journaled.
type Notice struct {
	Kind   string `json:"kind"`
	Thread string `json:"thread"`
	Run    string `json:"run"`
	// Request is the request a "waiting" notice is about, and
	// RequestKind whether it is an approval or a question.
	Request     string      `json:"request,omitempty"`
	RequestKind RequestKind `json:"requestKind,omitempty"`
	// Prompt is the request's prompt ("waiting").
	Prompt string `json:"prompt,omitempty"`
	// Text says what happened in a line: the prompt, the run's error
	// ("failed") or its reply ("finished"). It is agent text: sanitise
	// it before a terminal shows it.
	Text string `json:"text"`
	At   int64  `json:"at"`
	// Mission is the mission a notice is about (its Thread is then the
	// thread to look at: the planner's, or a task's).
	Mission string `json:"mission,omitempty"`
}

// NoticeOf maps a journaled event to a notice, if it is one. It needs no
// state: a request is journaled pending exactly once (when it opens), and
// a run's event ends it only when its EndedAt is the event's own time
// (later updates of an ended run, such as an undone rollback, keep the
// old EndedAt, and a run held back by its completion barrier has none).
func NoticeOf(ev *Event) (Notice, bool) {
	n := Notice{Thread: ev.Thread, Run: ev.Run, At: ev.At}
	p := &ev.Payload
	switch {
	case ev.Seq == 0:
		return Notice{}, false // live deltas are not facts yet
	case ev.Type == EvRequestUpdated && p.Request != nil && p.Request.Status == RequestPending:
		q := p.Request
		n.Kind, n.Run, n.Request, n.RequestKind = NoticeWaiting, q.Run, q.ID, q.Kind
		n.Prompt, n.Text = q.Prompt, q.Prompt
	case ev.Type == EvRunUpdated && p.Run != nil && p.Run.EndedAt == ev.At && p.Run.Finishing == "":
		r := p.Run
		n.Run = r.ID
		switch r.Status {
		case RunFailed:
			n.Kind, n.Text = NoticeFailed, "run "+itoa(r.Ordinal)+" failed"
			if r.Error != "" {
				n.Text += ": " + r.Error
			}
		case RunCompleted:
			n.Kind, n.Text = NoticeFinished, "run "+itoa(r.Ordinal)+" finished"
			if r.Reply != "" {
				n.Text += ": " + r.Reply
			}
		default:
			return Notice{}, false
		}
	case ev.Type == EvMissionUpdated && p.Mission != nil:
		var ok bool
		if n, ok = missionNotice(p.Mission, ev.At); !ok {
			return Notice{}, false
		}
	default:
		return Notice{}, false
	}
	n.Prompt, n.Text = utf8Head(n.Prompt, MaxNoticeText), utf8Head(n.Text, MaxNoticeText)
	return n, true
}

// MaxNoticeText bounds a notice's Prompt and Text (a reply can be a
// megabyte): a notice is a line on a phone, not the transcript.
const MaxNoticeText = 4096

// GuessedInputNote is in the runtime warning a provider without
// structured requests (the shell provider's PTY) posts when it guesses,
// from the look of the last line, that its program waits for input. Such
// a wait is a heuristic, unlike a protocol's request: the UI marks it
// differently, so a person knows which waits to trust.
const GuessedInputNote = " waits for input: "

// missionNotice is the notice of a mission.updated at time at: the
// mission began to wait on the person (waiting), or ended (finished,
// failed; a stop the person made is no news to them).
func missionNotice(m *Mission, at int64) (Notice, bool) {
	n := Notice{Mission: m.ID, Thread: m.PlanThread, At: at}
	for _, tk := range m.Tasks {
		if n.Thread == "" || (tk.Status == TaskFailed && tk.Thread != "") {
			n.Thread = tk.Thread
		}
	}
	switch {
	case m.AskedAt == at && m.Status == MissionAwaitPlan:
		n.Kind = NoticeWaiting
		n.Text = "mission " + m.ID + ": the plan of " + itoa(len(m.Tasks)) + " tasks waits for approval"
		n.Prompt = n.Text
	case m.AskedAt == at && m.Question != "":
		n.Kind, n.Text = NoticeWaiting, "mission "+m.ID+": "+m.Question
		n.Prompt = n.Text
	case m.EndedAt == at && m.Status == MissionCompleted:
		n.Kind, n.Text = NoticeFinished, "mission "+m.ID+" completed: "+m.Result
	case m.EndedAt == at && m.Status == MissionFailed:
		n.Kind, n.Text = NoticeFailed, "mission "+m.ID+" failed: "+m.Result
	default:
		return Notice{}, false
	}
	return n, true
}
