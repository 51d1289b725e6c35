package claude

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/providers/agentproc"
)

// frame is one stdout line of Claude Code stream-json: the union of the
// fields nexus reads.
type frame struct {
	Type      string          `json:"type"`
	Subtype   string          `json:"subtype"`
	SessionID string          `json:"session_id"`
	UUID      string          `json:"uuid"`
	Parent    *string         `json:"parent_tool_use_id"`
	Model     string          `json:"model"`
	Message   json.RawMessage `json:"message"`
	Event     json.RawMessage `json:"event"`
	RequestID string          `json:"request_id"`
	Request   json.RawMessage `json:"request"`
	Response  json.RawMessage `json:"response"`
	// result
	Result     string   `json:"result"`
	IsError    bool     `json:"is_error"`
	Errors     []string `json:"errors"`
	CostUSD    float64  `json:"total_cost_usd"`
	DurationMS int64    `json:"duration_ms"`
	Usage      struct {
		In          int `json:"input_tokens"`
		Out         int `json:"output_tokens"`
		CacheCreate int `json:"cache_creation_input_tokens"`
		CacheRead   int `json:"cache_read_input_tokens"`
	} `json:"usage"`
}

func (f *frame) parent() string {
	if f.Parent == nil {
		return ""
	}
	return *f.Parent
}

// lineWriter is where lines to the CLI go: its stdin (*agentproc.Proc),
// or a recorder in tests.
type lineWriter interface {
	WriteLine(b []byte) error
}

// decodeFrame decodes one stdout line; ok is false for anything that is
// not stream-json (not JSON, or JSON without a type).
func decodeFrame(line []byte) (f *frame, ok bool) {
	f = &frame{}
	if err := json.Unmarshal(line, f); err != nil || f.Type == "" {
		return nil, false
	}
	return f, true
}

// line handles one line of the CLI's stdout, answering control requests
// on w. It needs no process, so tests and fuzzing drive it directly. It
// reports whether the line was stream-json (the Lifecycle counts the
// others).
func (s *session) line(w lineWriter, b []byte) bool {
	f, ok := decodeFrame(b)
	if ok {
		s.frame(w, f)
	}
	return ok
}

func (s *session) warn(text string) {
	if t := s.Turn(); t != nil {
		t.Obs(core.Observation{Kind: core.ObsWarning, Text: text})
	}
}

// frame maps one frame to observations; control requests are answered
// on w.
func (s *session) frame(w lineWriter, f *frame) {
	t := s.Turn()
	if (f.Type == "assistant" || f.Type == "user") && f.Parent == nil && f.UUID != "" && t != nil {
		s.mu.Lock()
		s.lastUUID = f.UUID
		s.mu.Unlock()
	}
	switch f.Type {
	case "control_response":
		s.controlResponse(f)
	case "control_request":
		s.controlRequest(w, f)
	case "control_cancel_request":
		s.mu.Lock()
		delete(s.reqs, f.RequestID)
		s.mu.Unlock()
		if t != nil {
			t.Obs(core.Observation{Kind: core.ObsRequestClosed, Key: f.RequestID, Text: "withdrawn by Claude Code"})
		}
	case "system":
		if f.Subtype == "init" {
			s.initFrame(t, f)
		}
	case "stream_event":
		s.activity()
		if t != nil {
			s.streamEvent(t, f)
		}
	case "assistant":
		s.activity()
		if t != nil {
			s.assistant(t, f)
		}
	case "user":
		if t != nil {
			s.toolResults(t, f)
		}
	case "result":
		s.result(t, f)
	}
}

func (s *session) initFrame(t *agentproc.Turn, f *frame) {
	s.activity()
	s.mu.Lock()
	if f.Model != "" {
		s.model = f.Model
	}
	s.mu.Unlock()
	if t != nil && f.SessionID != "" {
		t.Obs(core.Observation{Kind: core.ObsNativeRef, Text: f.SessionID})
	}
}

// activity means the CLI is working on a queued (steering) message: the
// turn goes on past the last result.
func (s *session) activity() {
	s.mu.Lock()
	s.stopWindow()
	s.mu.Unlock()
}

// result ends the turn once every user line of it has its result; see
// steerWindow.
func (s *session) result(t *agentproc.Turn, f *frame) {
	if t == nil || t.Ended() {
		return
	}
	s.mu.Lock()
	model := s.model
	s.mu.Unlock()
	t.Obs(core.Observation{Kind: core.ObsLLM, Key: "claude:" + f.SessionID + ":" + f.UUID, Model: "claude " + model,
		TokensIn: agentproc.Count(f.Usage.In) + agentproc.Count(f.Usage.CacheCreate) + agentproc.Count(f.Usage.CacheRead), TokensOut: agentproc.Count(f.Usage.Out),
		CostUSD: max(f.CostUSD, 0), DurationMS: max(f.DurationMS, 0)})
	s.mu.Lock()
	s.pending--
	s.lastRes = f
	interrupted, pending := s.interrupt, s.pending
	if !interrupted && pending > 0 {
		s.stopWindow()
		s.window = time.AfterFunc(steerWindow, func() {
			s.mu.Lock()
			last := s.lastRes
			s.window = nil
			s.mu.Unlock()
			cur := s.Turn()
			if cur == t && last != nil {
				s.endTurn(t, last, false)
			}
		})
	}
	s.mu.Unlock()
	if interrupted || pending <= 0 {
		s.endTurn(t, f, interrupted)
	}
}

func (s *session) endTurn(t *agentproc.Turn, f *frame, interrupted bool) {
	s.flushOpen(t)
	s.mu.Lock()
	last := s.lastUUID
	s.mu.Unlock()
	if last != "" {
		t.Obs(core.Observation{Kind: core.ObsNativeTurn, Text: last})
	}
	switch {
	case interrupted:
		t.End(core.AttemptInterrupted, "interrupted")
	case f.Subtype == "success" && !f.IsError:
		t.End(core.AttemptCompleted, "")
	default:
		msg := f.Result
		if msg == "" && len(f.Errors) > 0 {
			msg = fmt.Sprint(f.Errors)
		}
		if msg == "" {
			msg = f.Subtype
		}
		t.End(core.AttemptFailed, "Claude Code: "+msg)
	}
}

// flushOpen closes text nodes still streaming (an interrupted message).
func (s *session) flushOpen(t *agentproc.Turn) {
	s.mu.Lock()
	open := s.open
	s.open = map[string]string{}
	s.mu.Unlock()
	for _, key := range open {
		t.Obs(core.Observation{Kind: core.ObsText, Key: key, Final: true})
	}
}
