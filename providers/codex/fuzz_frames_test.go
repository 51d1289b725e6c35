package codex

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

// codexSeeds are short app-server transcripts (one frame per line, the
// fields nexus ignores left out): streamed text, a command that asks, a
// file change the thread allows, questions, a plan, usage, errors and the
// ends of turns. They are kept short because the fuzzer's minimizer is
// quadratic in the input's length.
var codexSeeds = []string{
	`{"method":"turn/started","params":{"turn":{"id":"tu-1","status":"inProgress"}}}
{"method":"item/agentMessage/delta","params":{"itemId":"msg-1","delta":"Hel"}}
{"method":"item/completed","params":{"item":{"type":"agentMessage","id":"msg-1","text":"Hello"}}}`,
	`{"method":"item/completed","params":{"item":{"type":"agentMessage","id":"msg-2","text":"Bonjour"}}}
{"method":"turn/completed","params":{"turn":{"id":"tu-1","status":"completed","error":null}}}`,
	`{"method":"item/started","params":{"item":{"type":"commandExecution","id":"call-1","command":"touch x"}}}
{"id":0,"method":"item/commandExecution/requestApproval","params":{"itemId":"call-1","command":"touch x","reason":"make x"}}
{"method":"item/completed","params":{"item":{"type":"commandExecution","id":"call-1","command":["bash","-lc","touch x"],"status":"completed","aggregatedOutput":"made","exitCode":0}}}`,
	`{"method":"turn/plan/updated","params":{"plan":[{"step":"first","status":"completed"},{"step":"second","status":"inProgress"}]}}
{"method":"thread/tokenUsage/updated","params":{"turnId":"tu-1","tokenUsage":{"last":{"inputTokens":21,"outputTokens":9,"reasoningOutputTokens":1}}}}`,
	`{"id":7,"method":"item/fileChange/requestApproval","params":{"itemId":"fc-1"}}
{"method":"item/completed","params":{"item":{"type":"fileChange","id":"fc-1","status":"completed","changes":[{"path":"a.go","diff":"-a\n+b"},{"path":"/ws/b.go","kind":{"type":"update","move_path":"/ws/c.go"}}]}}}`,
	`{"id":8,"method":"applyPatchApproval","params":{"callId":"fc-2"}}
{"id":9,"method":"execCommandApproval","params":{"callId":"c-2","command":["ls","-la"]}}`,
	`{"id":"q1","method":"item/tool/requestUserInput","params":{"itemId":"ask-1","questions":[{"id":"color","question":"Which color?","options":[{"label":"red"}]},{"id":"size","question":"How big?"}]}}`,
	`{"id":"x","method":"item/unknown/request","params":{}}
{"id":3,"result":{"turn":{"id":"tu-1"}}}`,
	`{"method":"item/started","params":{"item":{"type":"mcpToolCall","id":"m-1","server":"docs","tool":"search"}}}
{"method":"item/completed","params":{"item":{"type":"webSearch","id":"w-1","query":"go fuzzing"}}}`,
	`{"method":"item/completed","params":{"item":{"type":"commandExecution","id":"c-3","command":"false","status":"failed","exitCode":1}}}
{"method":"warning","params":{"message":"model is slow"}}`,
	`{"method":"error","params":{"error":{"message":"stream dropped"},"willRetry":true}}
{"method":"error","params":{"error":{"message":"quota exceeded"},"willRetry":false}}
{"method":"turn/completed","params":{"turn":{"id":"tu-1","status":"failed"}}}`,
	"not json at all\n{\"method\":\"turn/completed\",\"params\":{\"turn\":{\"status\":\"interrupted\"}}}",
}

// wire records the lines nexus writes to the app-server.
type wire struct{ lines [][]byte }

// obsLog records observations; the fuzz body runs on one goroutine.
type obsLog struct{ obs []core.Observation }

func (l *obsLog) Observe(_ context.Context, o core.Observation) error {
	l.obs = append(l.obs, o)
	return nil
}

func (l *obsLog) Record(ctx context.Context, o core.Observation) error { return l.Observe(ctx, o) }

func (w *wire) WriteLine(b []byte) error {
	w.lines = append(w.lines, append([]byte(nil), b...))
	return nil
}

// FuzzCodexFrames feeds app-server stdout, one frame per line, through
// the reader's own line handler (session.line) of a session serving a
// turn that allows writes. Besides never panicking it checks that every
// server request is answered on the wire or becomes exactly one request
// keyed by its JSON-RPC id, and that answering it writes one reply with
// that id; that what nexus writes is one line of valid JSON-RPC; and that
// the observations are well formed (see checkCodexObs).
func FuzzCodexFrames(f *testing.F) {
	for _, s := range codexSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(runCodexFrames)
}

// TestCodexLongOutputStaysUTF8 runs the fuzz checks on tool output past
// the 16 KiB cut in a script that is not ASCII: the cut must not split a
// rune. (Too big for a fuzz seed: minimizing it would eat the fuzz time.)
func TestCodexLongOutputStaysUTF8(t *testing.T) {
	runCodexFrames(t, []byte(`{"method":"item/completed","params":{"item":{"type":"commandExecution","id":"c-4",`+
		`"command":"cat notes","status":"completed","aggregatedOutput":"x`+strings.Repeat("é", maxToolText/2+7)+`","exitCode":0}}}`))
}

// runCodexFrames is the body of FuzzCodexFrames.
func runCodexFrames(t *testing.T, data []byte) {
	sink := &obsLog{}
	out := agentproc.NewEmitter(context.Background(), sink)
	s := newSession(Config{Name: "codex", Command: []string{"codex", "app-server"}}, "t1", out)
	e := agenttest.StartTurn("t1", "codex", "hi")
	e.Turn.Policy.Allow = []string{"write"}
	e.Turn.Workspace = "/ws" // written paths are named relative to it
	w := &wire{}
	r := newRPC(w)
	s.Begin(agentproc.NewTurn(e, out, "codex", 0))
	s.rpc = r
	for _, line := range bytes.Split(data, []byte("\n")) {
		nObs, nWire := len(sink.obs), len(w.lines)
		s.line(r, line)
		if m, ok := decodeFrame(line); ok && m.Method != "" && m.ID != nil {
			checkServerRequest(t, s, m, sink.obs[nObs:], w.lines[nWire:])
		}
	}
	checkCodexObs(t, e, sink.obs, utf8.Valid(data))
	answerAll(t, s, w)
	for _, b := range w.lines {
		if m, ok := decodeFrame(b); !ok || m.Method != "" || bytes.ContainsRune(b, '\n') {
			t.Fatalf("nexus wrote %q: not one line holding a JSON-RPC response", b)
		}
	}
}

// checkServerRequest asserts that a server request was answered at once
// or became exactly one open request keyed by its id, never both.
func checkServerRequest(t *testing.T, s *session, m msg, obs []core.Observation, wrote [][]byte) {
	t.Helper()
	key := idString(m.ID)
	var reqs, replies int
	for _, o := range obs {
		if o.Kind == core.ObsRequest && o.Key == key {
			reqs++
		}
	}
	for _, b := range wrote {
		if r, ok := decodeFrame(b); ok && sameID(r.ID, m.ID) {
			replies++
			checkDecision(t, m.Method, r.Result)
		}
	}
	if reqs+replies != 1 || (reqs == 1 && s.reqs[key] == nil) {
		t.Fatalf("%s %s: %d requests and %d replies (want exactly one of them); open: %v", m.Method, m.ID, reqs, replies, s.reqs[key] != nil)
	}
}

// checkDecision asserts that an approval is answered in its method's
// vocabulary: the older execCommandApproval and applyPatchApproval take
// approved/approved_for_session/denied, the item/* ones accept,
// acceptForSession, decline or cancel.
func checkDecision(t *testing.T, method string, result json.RawMessage) {
	t.Helper()
	var res struct {
		Decision *string `json:"decision"`
	}
	if json.Unmarshal(result, &res) != nil || res.Decision == nil {
		return
	}
	legacy := map[string]bool{"approved": true, "approved_for_session": true, "denied": true, "abort": true}
	current := map[string]bool{"accept": true, "acceptForSession": true, "decline": true, "cancel": true}
	if isLegacy := method == "execCommandApproval" || method == "applyPatchApproval"; isLegacy && !legacy[*res.Decision] ||
		!isLegacy && !current[*res.Decision] {
		t.Fatalf("%s answered with decision %q", method, *res.Decision)
	}
}

// answerAll allows every open request and checks the one reply each gets.
func answerAll(t *testing.T, s *session, w *wire) {
	t.Helper()
	for key, q := range s.reqs {
		n := len(w.lines)
		s.answer(core.Effect{Key: key + ":answer", Kind: core.EffAnswer, Thread: "t1",
			Request: &core.Request{Key: key, Response: core.RespAllow, Answer: "red\nsmall"}})
		if len(w.lines) != n+1 {
			t.Fatalf("answering %s wrote %d lines, want 1", key, len(w.lines)-n)
		}
		r, ok := decodeFrame(w.lines[n])
		var res struct {
			Decision string                     `json:"decision"`
			Answers  map[string]json.RawMessage `json:"answers"`
		}
		if !ok || !sameID(r.ID, q.id) || json.Unmarshal(r.Result, &res) != nil {
			t.Fatalf("answer to %s: %s", key, w.lines[n])
		}
		if q.method == "item/tool/requestUserInput" {
			if len(res.Answers) != len(dedup(q.questions)) {
				t.Fatalf("answer to %s has %d answers for questions %q", key, len(res.Answers), q.questions)
			}
		} else if res.Decision != "accept" && res.Decision != "approved" {
			t.Fatalf("allowing %s (%s) answered %q", key, q.method, res.Decision)
		}
		checkDecision(t, q.method, r.Result)
	}
}

func dedup(xs []string) map[string]bool {
	m := map[string]bool{}
	for _, x := range xs {
		m[x] = true
	}
	return m
}

// sameID compares JSON-RPC ids by value: a reply re-encodes the id.
func sameID(a, b json.RawMessage) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && reflect.DeepEqual(x, y)
}

// checkCodexObs asserts what every observation of a turn promises: it
// is stamped with the attempt, nothing follows turn.ended, text is valid
// UTF-8 when the input was, tool nodes have a kind, a title and a known
// status with output cut to size, plan statuses are the three nexus
// knows, and usage is neither negative nor past agentproc.MaxCount.
func checkCodexObs(t *testing.T, e core.Effect, obs []core.Observation, validInput bool) {
	t.Helper()
	agenttest.CheckTurnObs(t, e, obs, validInput, func(o core.Observation) {
		switch o.Kind {
		case core.ObsNode:
			if o.NodeKind != core.NodeToolCall || o.Title == "" || len(o.Text) > maxToolText+len(cutMark) {
				t.Fatalf("tool node %q: kind %q, title %q, %d bytes of text", o.Key, o.NodeKind, o.Title, len(o.Text))
			}
			if o.NodeStatus != core.NodeRunning && o.NodeStatus != core.NodeCompleted && o.NodeStatus != core.NodeFailed {
				t.Fatalf("tool node %q has status %q", o.Key, o.NodeStatus)
			}
		case core.ObsRequest:
			if o.RequestKind != core.RequestApproval && o.RequestKind != core.RequestUserInput {
				t.Fatalf("request kind %q", o.RequestKind)
			}
		}
	})
}
