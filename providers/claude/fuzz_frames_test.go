package claude

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/providers/agentproc"
	"github.com/nexus-tui/nexus/providers/agentproc/agenttest"
)

// claudeSeeds are short stream-json transcripts (one frame per line, the
// fields nexus ignores left out): init, streamed and whole text, tool
// calls and results, todos both ways, approvals, a question, a withdrawn
// request, control requests nexus refuses, and results. They are kept
// short because the fuzzer's minimizer is quadratic in the input's length.
var claudeSeeds = []string{
	`{"type":"system","subtype":"init","session_id":"sess-1","model":"fake-model"}
{"type":"stream_event","event":{"type":"message_start","message":{"id":"m1"}}}
{"type":"stream_event","event":{"type":"content_block_start","index":0,"content_block":{"type":"text"}}}
{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hel"}}}`,
	`{"type":"assistant","message":{"id":"m1","content":[{"type":"text","text":"Hello"}]}}
{"type":"stream_event","parent_tool_use_id":"tu9","event":{"type":"content_block_stop","index":0}}
{"type":"assistant","message":{"id":"m5","content":"plain text"}}`,
	`{"type":"assistant","message":{"id":"m1","content":[{"type":"tool_use","id":"tu1","name":"Bash","input":{"command":"touch x"}}]}}
{"type":"control_request","request_id":"perm1","request":{"subtype":"can_use_tool","tool_name":"Bash","input":{"command":"touch x"},"tool_use_id":"tu1","description":"make x"}}
{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"tu1","content":"made x","is_error":false}]}}`,
	`{"type":"assistant","message":{"id":"m6","content":[{"type":"tool_use","id":"tw1","name":"Write","input":{"file_path":"/ws/a.go"}},{"type":"tool_use","id":"tw2","name":"NotebookEdit","input":{"notebook_path":"../n.ipynb"}}]}}
{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"tw1","content":"ok"},{"type":"tool_result","tool_use_id":"tw2","content":"ok"}]}}`,
	`{"type":"assistant","message":{"id":"m2","content":[{"type":"tool_use","id":"tu2","name":"TodoWrite","input":{"todos":[{"content":"first","status":"completed"},{"content":"second","status":"in_progress"}]}}]}}`,
	`{"type":"assistant","message":{"id":"m3","content":[{"type":"tool_use","id":"tc1","name":"TaskCreate","input":{"subject":"write docs"}}]}}
{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"tc1","content":[{"type":"text","text":"Task #7 created"}]}]}}
{"type":"assistant","message":{"id":"m4","content":[{"type":"tool_use","id":"tc2","name":"TaskUpdate","input":{"taskId":"7","status":"deleted"}}]}}`,
	`{"type":"control_request","request_id":"ask1","request":{"subtype":"can_use_tool","tool_name":"AskUserQuestion","input":{"questions":[{"question":"Which color?","options":[{"label":"red"},{"label":"blue"}]},{"question":"How big?"}]},"tool_use_id":"tu3"}}
{"type":"control_request","request_id":"web1","request":{"subtype":"can_use_tool","tool_name":"WebFetch","input":{"url":"https://go.dev"}}}`,
	`{"type":"control_request","request_id":"web2","request":{"subtype":"can_use_tool","tool_name":"WebFetch","input":{"url":"https://go.dev"}}}
{"type":"control_cancel_request","request_id":"web2"}`,
	`{"type":"control_request","request_id":"w1","request":{"subtype":"can_use_tool","tool_name":"Write","input":{"file_path":"/ws/a.txt","content":"hi"}}}
{"type":"control_request","request_id":"h1","request":{"subtype":"hook_callback","callback_id":"x"}}
{"type":"control_response","response":{"subtype":"error","request_id":"nexus-1","error":"no"}}`,
	`{"type":"assistant","parent_tool_use_id":"tu5","message":{"id":"m6","content":[{"type":"tool_use","id":"tu6","name":"Task","input":{"description":"explore"}}]}}
{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"tu6","content":"boom","is_error":true}]}}`,
	`{"type":"result","subtype":"success","is_error":false,"result":"All done.","session_id":"sess-1","uuid":"u1","total_cost_usd":0.0123,"duration_ms":250,"usage":{"input_tokens":100,"output_tokens":20,"cache_read_input_tokens":5}}`,
	`{"type":"result","subtype":"error_during_execution","is_error":true,"errors":["tool crashed"]}
{"type":"system","subtype":"init","session_id":"late"}`,
	"Error: not stream-json\n{\"type\":\"\"}",
}

// wire records the lines nexus writes to the CLI.
type wire struct{ lines [][]byte }

func (w *wire) WriteLine(b []byte) error {
	w.lines = append(w.lines, append([]byte(nil), b...))
	return nil
}

// obsLog records observations; the fuzz body runs on one goroutine.
type obsLog struct{ obs []core.Observation }

func (l *obsLog) Observe(_ context.Context, o core.Observation) error {
	l.obs = append(l.obs, o)
	return nil
}

func (l *obsLog) Record(ctx context.Context, o core.Observation) error { return l.Observe(ctx, o) }

// controlResp is a control_response line as nexus writes it.
type controlResp struct {
	Type     string `json:"type"`
	Response struct {
		Subtype   string `json:"subtype"`
		RequestID string `json:"request_id"`
		Error     string `json:"error"`
		Response  struct {
			Behavior     string         `json:"behavior"`
			UpdatedInput map[string]any `json:"updatedInput"`
		} `json:"response"`
	} `json:"response"`
}

// FuzzClaudeFrames feeds stream-json stdout, one frame per line, through
// the reader's own line handler (session.line) of a session serving a
// turn that allows writes. Besides never panicking it checks that every
// control request is answered on the wire or becomes exactly one request
// keyed by its request_id; that allowing an open request sends back the
// very input the CLI asked about; that what nexus writes is one line of
// JSON; and that the observations are well formed (see checkClaudeObs).
func FuzzClaudeFrames(f *testing.F) {
	for _, s := range claudeSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(runClaudeFrames)
}

// TestClaudeLongTextStaysUTF8 runs the fuzz checks on a long title and
// tool output in a script that is not ASCII: cutting them to size must
// not split a rune. (Too big for a fuzz seed: minimizing it would eat the
// fuzz time.)
func TestClaudeLongTextStaysUTF8(t *testing.T) {
	cmd := "git commit -m '" + strings.Repeat("é", 80) + "'"
	out := "x" + strings.Repeat("é", maxToolText/2+7)
	runClaudeFrames(t, []byte(`{"type":"assistant","message":{"id":"m1","content":[{"type":"tool_use","id":"tu1","name":"Bash","input":{"command":"`+cmd+`"}}]}}
{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"tu1","content":"`+out+`"}]}}`))
}

// runClaudeFrames is the body of FuzzClaudeFrames.
func runClaudeFrames(t *testing.T, data []byte) {
	sink := &obsLog{}
	out := agentproc.NewEmitter(context.Background(), sink)
	s := newSession(Config{Name: "claude", Command: []string{"claude"}}, "t1", out)
	e := agenttest.StartTurn("t1", "claude", "hi")
	e.Turn.Workspace = "/ws" // written paths are named relative to it
	s.Begin(agentproc.NewTurn(e, out, "claude", 0))
	s.pending = 1
	s.allow["write"] = true
	w := &wire{}
	for _, line := range bytes.Split(data, []byte("\n")) {
		nObs, nWire := len(sink.obs), len(w.lines)
		s.line(w, line)
		if f, ok := decodeFrame(line); ok && f.Type == "control_request" {
			checkControlRequest(t, s, f.RequestID, sink.obs[nObs:], w.lines[nWire:])
		}
	}
	checkClaudeObs(t, e, sink.obs, utf8.Valid(data))
	for _, q := range s.reqs {
		resp := response(q, core.Request{Response: core.RespAllow})
		if q.tool == "AskUserQuestion" {
			resp = response(q, core.Request{Response: core.RespAnswer, Answer: "red\nsmall"})
		}
		n := len(w.lines)
		_ = reply(w, q.id, resp, "")
		var r controlResp
		if json.Unmarshal(w.lines[n], &r) != nil || r.Response.RequestID != q.id || r.Response.Response.Behavior != "allow" {
			t.Fatalf("allowing %q wrote %s", q.id, w.lines[n])
		}
		got := r.Response.Response.UpdatedInput
		if q.tool == "AskUserQuestion" {
			delete(got, "answers")
		}
		want := roundTrip(q.input)
		delete(want, "answers")
		if len(got) != 0 || len(want) != 0 {
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("allowing %q changed the tool input:\n got %v\nwant %v", q.id, got, want)
			}
		}
	}
	for _, b := range w.lines {
		var r controlResp
		if json.Unmarshal(b, &r) != nil || r.Type != "control_response" || bytes.ContainsRune(b, '\n') {
			t.Fatalf("nexus wrote %q: not one line holding a control_response", b)
		}
	}
}

// roundTrip is an input as the CLI reads it back from JSON.
func roundTrip(in map[string]any) map[string]any {
	b, _ := json.Marshal(in)
	var out map[string]any
	_ = json.Unmarshal(b, &out)
	return out
}

// checkControlRequest asserts that a control request was answered at
// once or became exactly one open request keyed by its id, never both.
func checkControlRequest(t *testing.T, s *session, id string, obs []core.Observation, wrote [][]byte) {
	t.Helper()
	var reqs, replies int
	for _, o := range obs {
		if o.Kind == core.ObsRequest && o.Key == id {
			reqs++
		}
	}
	for _, b := range wrote {
		var r controlResp
		if json.Unmarshal(b, &r) == nil && r.Response.RequestID == id {
			replies++
		}
	}
	if reqs+replies != 1 || (reqs == 1 && s.reqs[id] == nil) {
		t.Fatalf("control request %q: %d requests and %d replies (want exactly one of them)", id, reqs, replies)
	}
}

// checkClaudeObs asserts what every observation of a turn promises: it
// is stamped with the attempt, nothing follows turn.ended, text is valid
// UTF-8 when the input was, text nodes have a key, tool nodes a kind and
// a known status with output cut to size, plan statuses are the three
// nexus knows, usage is neither negative nor past agentproc.MaxCount, and
// approvals say what they allow.
func checkClaudeObs(t *testing.T, e core.Effect, obs []core.Observation, validInput bool) {
	t.Helper()
	agenttest.CheckTurnObs(t, e, obs, validInput, func(o core.Observation) {
		switch o.Kind {
		case core.ObsText:
			if o.Key == "" {
				t.Fatalf("text without a node key: %+v", o)
			}
		case core.ObsNode:
			if o.NodeStatus != core.NodeRunning && o.NodeStatus != core.NodeCompleted && o.NodeStatus != core.NodeFailed ||
				o.NodeStatus == core.NodeRunning && o.NodeKind != core.NodeToolCall && o.NodeKind != core.NodeSubagent ||
				len(o.Text) > maxToolText+len(cutMark) {
				t.Fatalf("tool node %q: kind %q, status %q, %d bytes of text", o.Key, o.NodeKind, o.NodeStatus, len(o.Text))
			}
		case core.ObsRequest:
			if o.RequestKind == core.RequestApproval && !strings.HasPrefix(o.Prompt, "Allow ") ||
				o.RequestKind == core.RequestUserInput && o.Prompt == "" {
				t.Fatalf("request %q (%s) prompts %q", o.Key, o.RequestKind, o.Prompt)
			}
		}
	})
}
