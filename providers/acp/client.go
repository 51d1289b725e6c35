package acp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/providers/agentproc"
)

// discardLogger keeps the SDK quiet: nexus reports what matters on the
// thread.
var discardLogger = slog.New(slog.NewTextHandler(io.Discard, nil))

const (
	maxToolText = 16 << 10
	// cutMark ends tool output that nexus cut to maxToolText bytes.
	cutMark = "\n[... cut by nexus]"
)

// client is nexus as an ACP client: files confined to the workspace,
// terminals, permissions as requests, updates as observations.
type client struct{ s *session }

var _ sdk.Client = (*client)(nil)

// confine resolves a path the agent names and refuses anything outside
// the thread's workspace (symlinks included).
func (c *client) confine(path string) (string, error) {
	c.s.mu.Lock()
	ws := c.s.workspace
	c.s.mu.Unlock()
	if !filepath.IsAbs(path) {
		return "", fmt.Errorf("nexus: path %q is not absolute", path)
	}
	if ws == "" {
		return filepath.Clean(path), nil
	}
	root, err := filepath.EvalSymlinks(ws)
	if err != nil {
		root = ws
	}
	p := filepath.Clean(path)
	// Resolve the deepest existing ancestor so a symlink cannot lead out.
	dir, rest := p, ""
	for {
		if r, err := filepath.EvalSymlinks(dir); err == nil {
			p = filepath.Join(r, rest)
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		rest = filepath.Join(filepath.Base(dir), rest)
		dir = parent
	}
	if p != root && !strings.HasPrefix(p, root+string(filepath.Separator)) {
		return "", fmt.Errorf("nexus: %s is outside the workspace %s", path, ws)
	}
	return p, nil
}

// ReadTextFile answers a missing file with empty content, not an error:
// gemini reads a file before writing it and fails the write otherwise.
func (c *client) ReadTextFile(_ context.Context, p sdk.ReadTextFileRequest) (sdk.ReadTextFileResponse, error) {
	path, err := c.confine(p.Path)
	if err != nil {
		return sdk.ReadTextFileResponse{}, err
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return sdk.ReadTextFileResponse{Content: ""}, nil
	}
	if err != nil {
		return sdk.ReadTextFileResponse{}, err
	}
	content := string(b)
	if p.Line != nil || p.Limit != nil {
		lines := strings.SplitAfter(content, "\n")
		start := 0
		if p.Line != nil && *p.Line > 1 {
			start = min(*p.Line-1, len(lines))
		}
		end := len(lines)
		if p.Limit != nil && *p.Limit >= 0 && start+*p.Limit < end {
			end = start + *p.Limit
		}
		content = strings.Join(lines[start:end], "")
	}
	return sdk.ReadTextFileResponse{Content: content}, nil
}

// WriteTextFile writes inside the workspace.
func (c *client) WriteTextFile(_ context.Context, p sdk.WriteTextFileRequest) (sdk.WriteTextFileResponse, error) {
	path, err := c.confine(p.Path)
	if err != nil {
		return sdk.WriteTextFileResponse{}, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return sdk.WriteTextFileResponse{}, err
	}
	return sdk.WriteTextFileResponse{}, os.WriteFile(path, []byte(p.Content), 0o644)
}

// actionOf is the nexus action kind of a tool kind, for "allow always".
func actionOf(k *sdk.ToolKind) string {
	if k == nil {
		return ""
	}
	switch *k {
	case sdk.ToolKindEdit, sdk.ToolKindDelete, sdk.ToolKindMove:
		return "write"
	case sdk.ToolKindExecute:
		return "command"
	}
	return ""
}

// RequestPermission becomes an approval; it waits for the answer, a
// cancel, or the end of the process.
func (c *client) RequestPermission(ctx context.Context, p sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
	s := c.s
	cancelled := sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeCancelled()}
	t := s.Turn()
	if t == nil || t.Ended() {
		return cancelled, nil
	}
	action := actionOf(p.ToolCall.Kind)
	if action != "" && t.E.Turn != nil && t.E.Turn.Policy.Allows(action) {
		if id, ok := pick(p.Options, sdk.PermissionOptionKindAllowOnce, sdk.PermissionOptionKindAllowAlways); ok {
			return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeSelected(id)}, nil
		}
	}
	c.toolNode(t, p.ToolCall)
	title := string(p.ToolCall.ToolCallId)
	if p.ToolCall.Title != nil {
		title = *p.ToolCall.Title
	}
	w := &perm{options: p.Options, answer: make(chan core.Request, 1), cancel: make(chan struct{})}
	s.mu.Lock()
	s.permN++
	key := fmt.Sprintf("%s#%d", p.ToolCall.ToolCallId, s.permN)
	s.perms[key] = w
	s.mu.Unlock()
	// However the wait ends, the agent no longer waits: an answer that
	// comes later is reported as missed, not delivered to nobody.
	defer func() {
		s.mu.Lock()
		delete(s.perms, key)
		s.mu.Unlock()
	}()
	t.Obs(core.Observation{Kind: core.ObsRequest, Key: key, Parent: string(p.ToolCall.ToolCallId),
		RequestKind: core.RequestApproval, Action: action, Prompt: "Allow " + title + "?"})
	select {
	case q := <-w.answer:
		var id sdk.PermissionOptionId
		var ok bool
		switch q.Response {
		case core.RespAllow:
			id, ok = pick(p.Options, sdk.PermissionOptionKindAllowOnce, sdk.PermissionOptionKindAllowAlways)
		case core.RespAllowAlways:
			id, ok = pick(p.Options, sdk.PermissionOptionKindAllowAlways, sdk.PermissionOptionKindAllowOnce)
		default:
			id, ok = pick(p.Options, sdk.PermissionOptionKindRejectOnce, sdk.PermissionOptionKindRejectAlways)
			s.mu.Lock()
			s.denied = true
			s.mu.Unlock()
		}
		if !ok {
			return cancelled, nil
		}
		return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeSelected(id)}, nil
	case <-w.cancel:
		return cancelled, nil
	case <-ctx.Done():
		return cancelled, nil
	}
}

// pick is the first option of the first kind that has one; ok is false
// when the agent offered none of these kinds (an option id may be empty,
// so "" cannot say that).
func pick(opts []sdk.PermissionOption, kinds ...sdk.PermissionOptionKind) (id sdk.PermissionOptionId, ok bool) {
	for _, k := range kinds {
		for _, o := range opts {
			if o.Kind == k {
				return o.OptionId, true
			}
		}
	}
	return "", false
}

// answer delivers a resolved request to the waiting permission call.
func (s *session) answer(e core.Effect) {
	if e.Request == nil {
		s.out.Done(e, "failed", "no request in the effect")
		return
	}
	s.mu.Lock()
	w := s.perms[e.Request.Key]
	delete(s.perms, e.Request.Key)
	s.mu.Unlock()
	if w == nil {
		s.out.Done(e, "missed", "the agent no longer waits for this request")
		return
	}
	w.answer <- *e.Request
	s.out.Done(e, "completed", "")
}

// closeText ends the assistant message being streamed.
func (s *session) closeText(t *agentproc.Turn) {
	s.mu.Lock()
	key := s.textKey
	s.textKey = ""
	s.mu.Unlock()
	if key != "" {
		t.Obs(core.Observation{Kind: core.ObsText, Key: key, Final: true})
	}
}

// SessionUpdate maps the agent's updates to observations. Updates that
// arrive with no turn (a session/load replay) are dropped.
func (c *client) SessionUpdate(_ context.Context, n sdk.SessionNotification) error {
	s := c.s
	defer s.flow.done()
	select {
	case s.updated <- struct{}{}:
	default:
	}
	t := s.Turn()
	u := n.Update
	if u.UsageUpdate != nil && u.UsageUpdate.Cost != nil {
		s.mu.Lock()
		s.cost = max(u.UsageUpdate.Cost.Amount, 0)
		s.mu.Unlock()
	}
	if t == nil || t.Ended() {
		return nil
	}
	switch {
	case u.AgentMessageChunk != nil:
		if tb := u.AgentMessageChunk.Content.Text; tb != nil && tb.Text != "" {
			s.mu.Lock()
			if s.textKey == "" {
				s.msgN++
				s.textKey = fmt.Sprintf("msg%d", s.msgN)
				if id := u.AgentMessageChunk.MessageId; id != nil && *id != "" {
					s.textKey = *id
				}
			}
			key := s.textKey
			s.mu.Unlock()
			t.Obs(core.Observation{Kind: core.ObsText, Key: key, Text: tb.Text})
		}
	case u.ToolCall != nil:
		s.closeText(t)
		tc := u.ToolCall
		kind := tc.Kind
		st := tc.Status
		c.toolNode(t, sdk.ToolCallUpdate{ToolCallId: tc.ToolCallId, Title: &tc.Title, Kind: &kind, Status: &st,
			Content: tc.Content, RawOutput: tc.RawOutput})
	case u.ToolCallUpdate != nil:
		tc := u.ToolCallUpdate
		c.toolNode(t, sdk.ToolCallUpdate{ToolCallId: tc.ToolCallId, Title: tc.Title, Kind: tc.Kind, Status: tc.Status,
			Content: tc.Content, RawOutput: tc.RawOutput})
	case u.Plan != nil:
		var items []core.PlanItem
		for _, e := range u.Plan.Entries {
			items = append(items, core.PlanItem{Text: e.Content, Status: planStatus(e.Status)})
		}
		t.Obs(core.Observation{Kind: core.ObsPlan, Items: items})
	}
	return nil
}

// planStatus is a plan entry's status as nexus knows it; the SDK does not
// check the enum, and anything unknown is still to do.
func planStatus(s sdk.PlanEntryStatus) core.PlanItemStatus {
	switch s {
	case sdk.PlanEntryStatusInProgress, sdk.PlanEntryStatusCompleted:
		return core.PlanItemStatus(s)
	}
	return core.ItemPending
}

// toolNode creates or updates the node of a tool call.
func (c *client) toolNode(t *agentproc.Turn, tc sdk.ToolCallUpdate) {
	s := c.s
	id := string(tc.ToolCallId)
	o := core.Observation{Kind: core.ObsNode, Key: id, NodeKind: core.NodeToolCall}
	s.mu.Lock()
	if !s.tools[id] {
		s.tools[id] = true
		o.NodeStatus = core.NodeRunning
	}
	s.mu.Unlock()
	if tc.Title != nil {
		o.Title = *tc.Title
	}
	if tc.Status != nil {
		switch *tc.Status {
		case sdk.ToolCallStatusCompleted:
			o.NodeStatus = core.NodeCompleted
		case sdk.ToolCallStatusFailed:
			o.NodeStatus = core.NodeFailed
		}
	}
	o.Text = c.s.toolText(tc.Content)
	if o.Title == "" && o.NodeStatus == "" && o.Text == "" {
		return
	}
	t.Obs(o)
}

// toolText renders tool content: text, diffs, and the output of nexus's
// terminals.
func (s *session) toolText(content []sdk.ToolCallContent) string {
	var b strings.Builder
	for _, c := range content {
		switch {
		case c.Content != nil && c.Content.Content.Text != nil:
			b.WriteString(c.Content.Content.Text.Text)
			b.WriteString("\n")
		case c.Diff != nil:
			fmt.Fprintf(&b, "edit %s\n%s\n", c.Diff.Path, c.Diff.NewText)
		case c.Terminal != nil:
			b.WriteString(s.terms.output(c.Terminal.TerminalId))
		}
	}
	return cut(strings.TrimRight(b.String(), "\n"))
}

func cut(s string) string { return agentproc.Cut(s, maxToolText, cutMark) }
