package codex

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/providers/agentproc"
)

// request is a server request waiting for the person.
type request struct {
	id        json.RawMessage
	method    string
	questions []string // requestUserInput question ids
}

// serverRequest turns approvals and questions into requests; anything
// else is refused at once so the app-server never waits on nexus.
func (s *session) serverRequest(r *rpc, m msg) {
	var p struct {
		ItemID    string          `json:"itemId"`
		Command   json.RawMessage `json:"command"`
		Reason    string          `json:"reason"`
		Cwd       string          `json:"cwd"`
		GrantRoot string          `json:"grantRoot"`
		// FileChanges are applyPatchApproval's files (path -> change).
		FileChanges map[string]json.RawMessage `json:"fileChanges"`
		Questions   []struct {
			ID       string `json:"id"`
			Header   string `json:"header"`
			Question string `json:"question"`
			Options  []struct {
				Label string `json:"label"`
			} `json:"options"`
		} `json:"questions"`
	}
	_ = json.Unmarshal(m.Params, &p)
	t := s.Turn()
	if t == nil || t.Ended() {
		_ = r.replyError(m.ID, -32000, "nexus has no running turn for this request")
		return
	}
	key := idString(m.ID)
	unsure := false // the request may not be answered by the policy
	q := &request{id: m.ID, method: m.Method}
	o := core.Observation{Kind: core.ObsRequest, Key: key, Parent: p.ItemID, RequestKind: core.RequestApproval}
	switch m.Method {
	case "item/commandExecution/requestApproval", "execCommandApproval":
		o.Action = "command"
		o.Prompt = "Allow command: " + commandText(p.Command) + "?"
	case "item/fileChange/requestApproval", "applyPatchApproval":
		o.Action = "write"
		var ok bool
		if o.Prompt, unsure, ok = s.patchPrompt(r, m, t, p.ItemID, p.GrantRoot, p.FileChanges); !ok {
			return
		}
	case "item/tool/requestUserInput":
		o.RequestKind = core.RequestUserInput
		var lines []string
		for _, x := range p.Questions {
			q.questions = append(q.questions, x.ID)
			line := x.Question
			var opts []string
			for _, op := range x.Options {
				opts = append(opts, op.Label)
			}
			if len(opts) > 0 {
				line += " [" + strings.Join(opts, " / ") + "]"
			}
			lines = append(lines, line)
		}
		if len(lines) > 1 {
			lines = append(lines, "(answer one line per question)")
		}
		o.Prompt = strings.Join(lines, "\n")
	default:
		_ = r.replyError(m.ID, errMethodNotFound, fmt.Sprintf("nexus does not handle %s", m.Method))
		return
	}
	if p.Reason != "" {
		o.Prompt += " (" + p.Reason + ")"
	}
	if o.Action != "" && !unsure && policyOf(t.E.Turn).Allows(o.Action) {
		// The thread lets the agent do this without asking (its
		// profile's approval, --yes or an earlier "allow always").
		_ = r.reply(m.ID, map[string]any{"decision": decision(m.Method, core.RespAllow)})
		return
	}
	s.mu.Lock()
	s.reqs[key] = q
	s.mu.Unlock()
	t.Obs(o)
}

// answer delivers a resolved request.
func (s *session) answer(e core.Effect) {
	if e.Request == nil {
		s.out.Done(e, "failed", "no request in the effect")
		return
	}
	s.mu.Lock()
	q := s.reqs[e.Request.Key]
	delete(s.reqs, e.Request.Key)
	r := s.rpc
	s.mu.Unlock()
	if q == nil || r == nil {
		s.out.Done(e, "missed", "codex no longer waits for this request")
		return
	}
	var result any
	switch {
	case q.method == "item/tool/requestUserInput":
		lines := strings.Split(strings.TrimSpace(e.Request.Answer), "\n")
		answers := map[string]any{}
		for i, id := range q.questions {
			a := e.Request.Answer
			if len(q.questions) > 1 && len(lines) == len(q.questions) {
				a = lines[i]
			}
			answers[id] = map[string]any{"answers": []string{strings.TrimSpace(a)}}
		}
		result = map[string]any{"answers": answers}
	default:
		result = map[string]any{"decision": decision(q.method, e.Request.Response)}
	}
	if err := r.reply(q.id, result); err != nil {
		s.out.Done(e, "failed", err.Error())
		return
	}
	s.out.Done(e, "completed", "")
}

// decision answers an approval in its method's vocabulary: the older
// execCommandApproval and applyPatchApproval take approved,
// approved_for_session or denied; the item/* methods take accept,
// acceptForSession or decline.
func decision(method string, response core.Response) string {
	legacy := method == "execCommandApproval" || method == "applyPatchApproval"
	switch {
	case response == core.RespAllow && legacy:
		return "approved"
	case response == core.RespAllow:
		return "accept"
	case response == core.RespAllowAlways && legacy:
		return "approved_for_session"
	case response == core.RespAllowAlways:
		return "acceptForSession"
	case legacy:
		return "denied"
	}
	return "decline"
}

// patchPrompt is the prompt of a patch approval, naming its files;
// unsure when they are not known, so that the person is asked even when
// the thread allows writes. ok is false when nexus declined the patch
// itself: a patch (or the root it asks to write under) outside the
// workspace is never allowed, whoever would answer, since Codex applies
// an accepted patch wherever it points.
func (s *session) patchPrompt(r *rpc, m msg, t *agentproc.Turn, itemID, grantRoot string,
	changes map[string]json.RawMessage) (prompt string, unsure, ok bool) {
	paths, known := s.patchPaths(itemID, changes)
	ws := agentproc.Workspace(t.E)
	if out := outside(ws, append([]string{grantRoot}, paths...)...); out != "" {
		_ = r.reply(m.ID, map[string]any{"decision": decision(m.Method, core.RespDeny)})
		t.Obs(core.Observation{Kind: core.ObsWarning, Text: fmt.Sprintf(
			"nexus declined Codex's change to %s: it is outside the workspace %s", out, ws)})
		return "", false, false
	}
	if !known {
		return "Allow Codex to change files?", true, true
	}
	return "Allow Codex to change " + fileList(ws, paths) + "?", false, true
}

// patchPaths are the files a patch approval is for: applyPatchApproval
// names them; item/fileChange/requestApproval does not, and they come
// from its item's item/started. known is false when neither names any.
func (s *session) patchPaths(itemID string, changes map[string]json.RawMessage) (paths []string, known bool) {
	if len(changes) > 0 {
		for path := range changes {
			paths = append(paths, path)
		}
		slices.Sort(paths)
		return paths, true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	paths = s.patches[itemID]
	return paths, len(paths) > 0
}

// outside is the first of paths ("" ones skipped) outside the workspace
// ws, or "".
func outside(ws string, paths ...string) string {
	for _, p := range paths {
		if p == "" {
			continue
		}
		if _, err := agentproc.Confine(ws, p); err != nil {
			return p
		}
	}
	return ""
}

// fileList names the files of a patch for its prompt, relative to the
// workspace: the first three, and how many more.
func fileList(ws string, paths []string) string {
	if rel := agentproc.WorkspacePaths(ws, paths...); len(rel) > 0 {
		paths = rel
	}
	switch {
	case len(paths) == 0:
		return "files"
	case len(paths) > 3:
		return fmt.Sprintf("%s and %d more files", strings.Join(paths[:3], ", "), len(paths)-3)
	}
	return strings.Join(paths, ", ")
}
