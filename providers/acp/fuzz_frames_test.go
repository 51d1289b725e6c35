package acp

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/providers/agentproc"
	"github.com/nexus-tui/nexus/providers/agentproc/agenttest"
)

// acpSeeds are short ACP transcripts from the agent's side (one JSON-RPC
// message per line): text chunks, tool calls and updates, a plan, usage,
// permission requests and the answer to session/prompt. They are kept
// short because the fuzzer's minimizer is quadratic in the input's length.
var acpSeeds = []string{
	`{"method":"session/update","params":{"sessionId":"s-1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"Hel"}}}}
{"method":"session/update","params":{"sessionId":"s-1","update":{"sessionUpdate":"agent_message_chunk","messageId":"m-1","content":{"type":"text","text":"lo"}}}}`,
	`{"method":"session/update","params":{"sessionId":"s-1","update":{"sessionUpdate":"tool_call","toolCallId":"tc1","title":"touch x","kind":"execute","status":"pending"}}}
{"id":100,"method":"session/request_permission","params":{"sessionId":"s-1","toolCall":{"toolCallId":"tc1","title":"touch x","kind":"execute"},"options":[{"optionId":"yes","name":"Allow","kind":"allow_once"},{"optionId":"no","name":"Reject","kind":"reject_once"}]}}`,
	`{"id":101,"method":"session/request_permission","params":{"sessionId":"s-1","toolCall":{"toolCallId":"tc2","kind":"edit"},"options":[{"optionId":"always","name":"Always","kind":"allow_always"}]}}
{"id":102,"method":"session/request_permission","params":{"sessionId":"s-1","toolCall":{"toolCallId":"tc3","title":"rm"},"options":[]}}`,
	`{"id":103,"method":"session/request_permission","params":{"sessionId":"s-1","toolCall":{"toolCallId":"tc5","kind":"edit","locations":[{"path":"/ws/../etc/x"}]},"options":[{"optionId":"yes","name":"Allow","kind":"allow_once"},{"optionId":"no","name":"Reject","kind":"reject_once"}]}}
{"id":104,"method":"session/request_permission","params":{"sessionId":"s-1","toolCall":{"toolCallId":"tc6","kind":"move","content":[{"type":"diff","path":"/tmp/x","newText":"b"}]},"options":[{"optionId":"always","name":"Always","kind":"allow_always"}]}}`,
	`{"method":"session/update","params":{"sessionId":"s-1","update":{"sessionUpdate":"tool_call_update","toolCallId":"tc1","status":"completed","content":[{"type":"content","content":{"type":"text","text":"made x"}},{"type":"diff","path":"/ws/a.go","oldText":"a","newText":"b"},{"type":"terminal","terminalId":"term-1"}]}}}`,
	`{"method":"session/update","params":{"sessionId":"s-1","update":{"sessionUpdate":"tool_call","toolCallId":"tc4","title":"Edit","kind":"edit","locations":[{"path":"/ws/a.go"},{"path":"/etc/x"}]}}}
{"method":"session/update","params":{"sessionId":"s-1","update":{"sessionUpdate":"tool_call_update","toolCallId":"tc4","status":"completed"}}}`,
	`{"method":"session/update","params":{"sessionId":"s-1","update":{"sessionUpdate":"plan","entries":[{"content":"first","priority":"high","status":"completed"},{"content":"second","priority":"low","status":"in_progress"}]}}}`,
	`{"method":"session/update","params":{"sessionId":"s-1","update":{"sessionUpdate":"usage_update","used":100,"size":1000,"cost":{"amount":0.02,"currency":"USD"}}}}
{"id":1,"result":{"stopReason":"end_turn","usage":{"inputTokens":10,"outputTokens":5,"thoughtTokens":2,"totalTokens":17}}}`,
	`{"method":"session/update","params":{"sessionId":"s-1","update":{"sessionUpdate":"agent_thought_chunk","content":{"type":"text","text":"hmm"}}}}
{"method":"session/update","params":{"sessionId":"s-1","update":{"sessionUpdate":"tool_call_update","toolCallId":"tc9","status":"failed"}}}
{"id":1,"result":{"stopReason":"max_tokens"}}`,
	"{\"id\":1,\"result\":{\"stopReason\":\"cancelled\"}}\n{\"method\":\"session/update\",\"params\":{\"update\":{\"sessionUpdate\":\"plan\",\"entries\":[]}}}",
}

// obsLog records observations; permission requests, which arrive on the
// goroutine that waits for their answer, are also sent on reqs.
type obsLog struct {
	mu   sync.Mutex
	obs  []core.Observation
	reqs chan core.Observation
}

func (l *obsLog) Observe(_ context.Context, o core.Observation) error {
	l.mu.Lock()
	l.obs = append(l.obs, o)
	l.mu.Unlock()
	if o.Kind == core.ObsRequest {
		l.reqs <- o
	}
	return nil
}

func (l *obsLog) Record(ctx context.Context, o core.Observation) error { return l.Observe(ctx, o) }

func (l *obsLog) all() []core.Observation {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]core.Observation(nil), l.obs...)
}

// rpcLine is a JSON-RPC message from the agent, as far as the harness
// routes it: the SDK decodes params into its own types.
type rpcLine struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
}

// FuzzACPFrames feeds an agent's messages, one per line, to nexus's ACP
// client the way the SDK does (params unmarshalled into the SDK's types
// and validated): session/update to SessionUpdate, session/request_
// permission to RequestPermission, answered allow, allow always and deny
// in turn, and a result to the end of session/prompt (promptDone). The
// turn allows writes. Besides never panicking or hanging, it checks that
// a permission is either answered at once or becomes one request that
// its answer releases, with an option the agent offered of the kind
// asked for (an edit outside the workspace: rejected at once); and that
// the observations are well formed (checkACPObs).
func FuzzACPFrames(f *testing.F) {
	for _, s := range acpSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(runACPFrames)
}

// TestACPLongOutputStaysUTF8 runs the fuzz checks on tool output past the
// 16 KiB cut in a script that is not ASCII: the cut must not split a
// rune. (Too big for a fuzz seed: minimizing it would eat the fuzz time.)
func TestACPLongOutputStaysUTF8(t *testing.T) {
	runACPFrames(t, []byte(`{"method":"session/update","params":{"sessionId":"s-1","update":{"sessionUpdate":"tool_call",`+
		`"toolCallId":"tc1","title":"cat notes","content":[{"type":"content","content":{"type":"text","text":"x`+
		strings.Repeat("é", maxToolText/2+7)+`"}}]}}}`))
}

// runACPFrames is the body of FuzzACPFrames.
func runACPFrames(t *testing.T, data []byte) {
	sink := &obsLog{reqs: make(chan core.Observation, 1)}
	out := agentproc.NewEmitter(context.Background(), sink)
	s := newSession(Config{Name: "gemini", Command: []string{"gemini", "--acp"}}, "t1", out)
	e := agenttest.StartTurn("t1", "gemini", "hi")
	e.Turn.Policy.Allow = []string{"write"}
	e.Turn.Workspace = "/ws" // written paths are named relative to it
	s.Begin(agentproc.NewTurn(e, out, "gemini", 0))
	c := &client{s: s}
	responses := []core.Response{core.RespAllow, core.RespAllowAlways, core.RespDeny}
	asked := 0
	for _, line := range bytes.Split(data, []byte("\n")) {
		var m rpcLine
		if json.Unmarshal(line, &m) != nil {
			continue
		}
		switch {
		case m.Method == "session/update":
			var n sdk.SessionNotification
			if json.Unmarshal(m.Params, &n) == nil && n.Validate() == nil {
				_ = c.SessionUpdate(context.Background(), n)
			}
		case m.Method == "session/request_permission":
			var p sdk.RequestPermissionRequest
			if json.Unmarshal(m.Params, &p) == nil && p.Validate() == nil {
				permission(t, c, sink, p, responses[asked%len(responses)])
				asked++
			}
		case m.Method == "" && m.Result != nil:
			var r sdk.PromptResponse
			if json.Unmarshal(m.Result, &r) == nil {
				s.promptDone(s.Turn(), r, nil, nil, nil)
			}
		}
	}
	checkACPObs(t, e, sink.all(), utf8.Valid(data))
}

// permission runs one session/request_permission, answers the request it
// opens with resp, and checks the outcome the agent gets.
func permission(t *testing.T, c *client, sink *obsLog, p sdk.RequestPermissionRequest, resp core.Response) {
	t.Helper()
	done := make(chan sdk.RequestPermissionResponse, 1)
	go func() {
		r, _ := c.RequestPermission(context.Background(), p)
		done <- r
	}()
	var got sdk.RequestPermissionResponse
	select {
	case got = <-done:
		// Answered at once: no running turn, an edit outside the
		// workspace (rejected), or the thread allows it.
		resp = core.RespAllow
		if c.outside(actionOf(p.ToolCall.Kind), p.ToolCall) != "" {
			resp = core.RespDeny
		}
		if o := got.Outcome.Selected; o == nil && c.s.Turn().Ended() {
			return
		}
	case o := <-sink.reqs:
		if o.Parent != string(p.ToolCall.ToolCallId) || !strings.HasPrefix(o.Key, o.Parent+"#") {
			t.Fatalf("request %q for tool call %q", o.Key, p.ToolCall.ToolCallId)
		}
		c.s.answer(core.Effect{Key: o.Key + ":answer", Kind: core.EffAnswer, Thread: "t1",
			Request: &core.Request{Key: o.Key, Response: resp}})
		select {
		case got = <-done:
		case <-time.After(5 * time.Second):
			t.Fatalf("request %q answered %s but the permission call still waits", o.Key, resp)
		}
	case <-time.After(5 * time.Second):
		t.Fatalf("the permission for %q was neither answered nor asked", p.ToolCall.ToolCallId)
	}
	want := map[sdk.PermissionOptionKind]bool{sdk.PermissionOptionKindAllowOnce: true, sdk.PermissionOptionKindAllowAlways: true}
	if resp == core.RespDeny {
		want = map[sdk.PermissionOptionKind]bool{sdk.PermissionOptionKindRejectOnce: true, sdk.PermissionOptionKindRejectAlways: true}
	}
	offered := false
	for _, op := range p.Options {
		offered = offered || want[op.Kind]
	}
	if sel := got.Outcome.Selected; sel != nil {
		for _, op := range p.Options {
			if op.OptionId == sel.OptionId && want[op.Kind] {
				return
			}
		}
		t.Fatalf("answered %s with option %q, not one offered of that kind: %+v", resp, sel.OptionId, p.Options)
	}
	if offered {
		t.Fatalf("answered %s with cancelled although the agent offered such an option: %+v", resp, p.Options)
	}
}

// checkACPObs asserts what every observation of a turn promises: it is
// stamped with the attempt, nothing follows turn.ended, text is valid
// UTF-8 when the input was, text nodes have a key, tool nodes have a kind
// and something to show (or the paths written) with output cut to size,
// plan statuses are the three nexus knows, usage is neither negative nor
// past agentproc.MaxCount, and approvals say what they allow.
func checkACPObs(t *testing.T, e core.Effect, obs []core.Observation, validInput bool) {
	t.Helper()
	agenttest.CheckTurnObs(t, e, obs, validInput, func(o core.Observation) {
		switch o.Kind {
		case core.ObsText:
			if o.Key == "" {
				t.Fatalf("text without a node key: %+v", o)
			}
		case core.ObsNode:
			if o.NodeKind != core.NodeToolCall || o.Title == "" && o.NodeStatus == "" && o.Text == "" && len(o.Paths) == 0 ||
				len(o.Text) > maxToolText+len(cutMark) {
				t.Fatalf("tool node %q: kind %q, title %q, status %q, %d bytes of text", o.Key, o.NodeKind, o.Title, o.NodeStatus, len(o.Text))
			}
		case core.ObsRequest:
			if o.RequestKind != core.RequestApproval || !strings.HasPrefix(o.Prompt, "Allow ") ||
				o.Action != "" && o.Action != "write" && o.Action != "command" {
				t.Fatalf("request %q: kind %q, action %q, prompt %q", o.Key, o.RequestKind, o.Action, o.Prompt)
			}
		}
	})
}
