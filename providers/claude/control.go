package claude

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/providers/agentproc"
)

type controlReq struct {
	Subtype   string         `json:"subtype"`
	ToolName  string         `json:"tool_name"`
	Input     map[string]any `json:"input"`
	ToolUseID string         `json:"tool_use_id"`
	Desc      string         `json:"description"`
}

// controlResponse routes the answer to one of our control requests.
func (s *session) controlResponse(f *frame) {
	var r struct {
		RequestID string          `json:"request_id"`
		Subtype   string          `json:"subtype"`
		Error     string          `json:"error"`
		Response  json.RawMessage `json:"response"`
	}
	if json.Unmarshal(f.Response, &r) != nil {
		return
	}
	s.mu.Lock()
	ch := s.ctrl[r.RequestID]
	delete(s.ctrl, r.RequestID)
	s.mu.Unlock()
	if ch == nil {
		return
	}
	if r.Subtype == "error" {
		s.warn(fmt.Sprintf("%s refused a control request: %s", s.cfg.Name, r.Error))
	}
	ch <- r.Response
}

// controlRequest handles what the CLI asks nexus: can_use_tool becomes an
// approval, or a question for AskUserQuestion; anything else is answered
// with an error so the CLI never waits on nexus for ever.
func (s *session) controlRequest(w lineWriter, f *frame) {
	var r controlReq
	_ = json.Unmarshal(f.Request, &r)
	t := s.Turn()
	if r.Subtype != "can_use_tool" || t == nil || t.Ended() {
		reply(w, f.RequestID, nil, fmt.Sprintf("nexus does not handle %q here", r.Subtype))
		return
	}
	q := &permReq{id: f.RequestID, tool: r.ToolName, action: actionOf(r.ToolName), input: r.Input}
	if q.input == nil {
		q.input = map[string]any{}
	}
	sure := true // the thread's policy may answer it
	if q.action == "write" {
		var ok bool
		if sure, ok = s.confineWrite(w, t, q); !ok {
			return
		}
	}
	s.mu.Lock()
	auto := q.action != "" && sure && s.allow[q.action]
	if !auto {
		s.reqs[q.id] = q
	}
	s.mu.Unlock()
	if auto {
		reply(w, q.id, map[string]any{"behavior": "allow", "updatedInput": q.input}, "")
		return
	}
	if r.ToolName == "AskUserQuestion" {
		t.Obs(core.Observation{Kind: core.ObsRequest, Key: q.id, Parent: r.ToolUseID, RequestKind: core.RequestUserInput,
			Prompt: questionPrompt(r.Input)})
		return
	}
	prompt := fmt.Sprintf("Allow %s?", toolTitle(r.ToolName, r.Input))
	if r.Desc != "" && !strings.Contains(prompt, r.Desc) {
		prompt += " (" + r.Desc + ")"
	}
	t.Obs(core.Observation{Kind: core.ObsRequest, Key: q.id, Parent: r.ToolUseID, RequestKind: core.RequestApproval,
		Action: q.action, Prompt: prompt})
}

// confineWrite keeps a write tool inside the workspace, whoever would
// answer: one that names a file outside it is denied at once (ok false),
// with a warning on the thread. sure is false when the tool names no
// file, so that the person is asked even when the thread allows writes.
func (s *session) confineWrite(w lineWriter, t *agentproc.Turn, q *permReq) (sure, ok bool) {
	path := writtenPath(q.tool, q.input)
	if path == "" {
		return false, true
	}
	ws := agentproc.Workspace(t.E)
	if _, err := agentproc.Confine(ws, path); err != nil {
		msg := fmt.Sprintf("nexus keeps writes inside the workspace %s; %s is outside it.", ws, path)
		reply(w, q.id, map[string]any{"behavior": "deny", "message": msg}, "")
		t.Obs(core.Observation{Kind: core.ObsWarning, Text: fmt.Sprintf("nexus denied Claude's %s of %s: it is outside the workspace %s",
			q.tool, path, ws)})
		return false, false
	}
	return true, true
}

// answer delivers a resolved request to the CLI.
func (s *session) answer(e core.Effect) {
	if e.Request == nil {
		s.out.Done(e, "failed", "no request in the effect")
		return
	}
	p := s.proc()
	s.mu.Lock()
	q := s.reqs[e.Request.Key]
	delete(s.reqs, e.Request.Key)
	if q != nil && e.Request.Response == core.RespAllowAlways && q.action != "" {
		s.allow[q.action] = true
	}
	s.mu.Unlock()
	if q == nil || p == nil {
		s.out.Done(e, "missed", "Claude Code no longer waits for this request")
		return
	}
	if err := reply(p, q.id, response(q, *e.Request), ""); err != nil {
		s.out.Done(e, "failed", err.Error())
		return
	}
	s.out.Done(e, "completed", "")
}

// response is the CLI's answer to a can_use_tool request: allow with the
// input it asked about (plus the answers, for a question), or deny.
func response(q *permReq, r core.Request) map[string]any {
	switch r.Response {
	case core.RespAllow, core.RespAllowAlways:
		return map[string]any{"behavior": "allow", "updatedInput": q.input}
	case core.RespAnswer:
		in := map[string]any{}
		for k, v := range q.input {
			in[k] = v
		}
		in["answers"] = answers(q.input, r.Answer)
		return map[string]any{"behavior": "allow", "updatedInput": in}
	}
	return map[string]any{"behavior": "deny", "message": "The user denied this in nexus."}
}

// reply answers a control request of the CLI: a success with resp, or an
// error with errText when it is set.
func reply(w lineWriter, id string, resp map[string]any, errText string) error {
	body := map[string]any{"subtype": "success", "request_id": id, "response": resp}
	if errText != "" {
		body = map[string]any{"subtype": "error", "request_id": id, "error": errText}
	}
	b, _ := json.Marshal(map[string]any{"type": "control_response", "response": body})
	return w.WriteLine(b)
}

type question struct {
	Question string `json:"question"`
	Header   string `json:"header"`
	Options  []struct {
		Label       string `json:"label"`
		Description string `json:"description"`
	} `json:"options"`
}

func questionsOf(in map[string]any) []question {
	b, _ := json.Marshal(in["questions"])
	var qs []question
	_ = json.Unmarshal(b, &qs)
	return qs
}

// questionPrompt shows AskUserQuestion's questions and options; with
// several questions, answer one per line.
func questionPrompt(in map[string]any) string {
	qs := questionsOf(in)
	var b strings.Builder
	for i, q := range qs {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString(q.Question)
		var opts []string
		for _, o := range q.Options {
			opts = append(opts, o.Label)
		}
		if len(opts) > 0 {
			b.WriteString(" [" + strings.Join(opts, " / ") + "]")
		}
	}
	if len(qs) > 1 {
		b.WriteString("\n(answer one line per question)")
	}
	if b.Len() == 0 {
		return "Claude Code asks a question"
	}
	return b.String()
}

// answers maps the person's answer to AskUserQuestion's answers object:
// question text -> answer; one line per question when there are several
// and as many lines, else the same answer to each.
func answers(in map[string]any, answer string) map[string]any {
	qs := questionsOf(in)
	lines := strings.Split(strings.TrimSpace(answer), "\n")
	out := map[string]any{}
	for i, q := range qs {
		a := answer
		if len(qs) > 1 && len(lines) == len(qs) {
			a = lines[i]
		}
		out[q.Question] = strings.TrimSpace(a)
	}
	return out
}
