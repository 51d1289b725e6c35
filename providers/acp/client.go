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
// the thread's workspace (symlinks included); ACP paths are absolute.
func (c *client) confine(path string) (string, error) {
	c.s.mu.Lock()
	ws := c.s.workspace
	c.s.mu.Unlock()
	if !filepath.IsAbs(path) {
		return "", fmt.Errorf("nexus: path %q is not absolute", path)
	}
	return agentproc.Confine(ws, path)
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

// WriteTextFile writes inside the workspace, under the same approval
// policy as every other write: the turn's policy allows writes, or the
// person allowed this write (an edit permission the agent asked for this
// turn, naming the path or naming none), or nexus asks now. A path with a
// .git component is refused (git runs what a repository's config names,
// and nexus runs git on the workspace), and the file is written through
// an os.Root on the workspace, which refuses any symlink that leads out,
// a dangling one included.
func (c *client) WriteTextFile(ctx context.Context, p sdk.WriteTextFileRequest) (sdk.WriteTextFileResponse, error) {
	mark := c.s.flow.mark() // the updates the agent sent before this write
	path, err := c.confine(p.Path)
	if err != nil {
		return sdk.WriteTextFileResponse{}, err
	}
	c.s.mu.Lock()
	ws := c.s.workspace
	c.s.mu.Unlock()
	root, rel, err := openRoot(ws, path)
	if err != nil {
		return sdk.WriteTextFileResponse{}, err
	}
	defer root.Close()
	if gitPath(rel) {
		return sdk.WriteTextFileResponse{}, fmt.Errorf("nexus: refused %s: it is inside a .git directory; an agent may not write a repository's own files", p.Path)
	}
	if fi, err := root.Lstat(rel); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		if _, err := root.Stat(rel); err != nil {
			return sdk.WriteTextFileResponse{}, fmt.Errorf("nexus: refused %s: it is a symlink that leads outside the workspace or nowhere", p.Path)
		}
	}
	if err := c.approveWrite(ctx, path, rel, len(p.Content)); err != nil {
		return sdk.WriteTextFileResponse{}, err
	}
	if dir := filepath.Dir(rel); dir != "." {
		if err := root.MkdirAll(dir, 0o755); err != nil {
			return sdk.WriteTextFileResponse{}, fmt.Errorf("nexus: %s: %w", p.Path, err)
		}
	}
	f, err := root.OpenFile(rel, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return sdk.WriteTextFileResponse{}, fmt.Errorf("nexus: %s: %w", p.Path, err)
	}
	if _, err := f.WriteString(p.Content); err != nil {
		f.Close()
		return sdk.WriteTextFileResponse{}, err
	}
	if err := f.Close(); err != nil {
		return sdk.WriteTextFileResponse{}, err
	}
	if t := c.s.Turn(); t != nil {
		// The tool call this write is for may still be in the SDK's
		// queue of updates: wait for it before looking for it.
		c.s.flow.wait(mark, holdMax)
		c.wroteFile(t, path, len(p.Content))
	}
	return sdk.WriteTextFileResponse{}, nil
}

// openRoot opens the workspace as an os.Root and names path relative to
// it; with no workspace, the root is the file's directory.
func openRoot(ws, path string) (*os.Root, string, error) {
	dir := ws
	if dir == "" {
		dir = filepath.Dir(path)
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	rel, err := filepath.Rel(dir, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return nil, "", fmt.Errorf("nexus: %s is outside the workspace %s", path, ws)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, "", fmt.Errorf("nexus: open the workspace %s: %w", dir, err)
	}
	return root, rel, nil
}

// gitPath reports a .git component in a workspace-relative path, in any
// case (a case-insensitive file system treats .GIT as .git).
func gitPath(rel string) bool {
	for _, part := range strings.Split(filepath.ToSlash(rel), "/") {
		if strings.EqualFold(part, ".git") {
			return true
		}
	}
	return false
}

// approveWrite lets a write of size bytes to path (rel to the workspace)
// go ahead, or returns why not.
func (c *client) approveWrite(ctx context.Context, path, rel string, size int) error {
	s := c.s
	t := s.Turn()
	if t == nil || t.Ended() {
		return fmt.Errorf("nexus: refused writing %s: no turn is running", rel)
	}
	if t.E.Turn != nil && t.E.Turn.Policy.Allows("write") {
		return nil
	}
	s.mu.Lock()
	switch {
	case s.granted[path]:
		delete(s.granted, path)
		s.mu.Unlock()
		return nil
	case s.grantedAny > 0:
		s.grantedAny--
		s.mu.Unlock()
		return nil
	}
	s.mu.Unlock()
	resp, ok := c.ask(ctx, t, "write:"+rel, "", "write", fmt.Sprintf("Allow writing %s? (%d bytes)", rel, size))
	if !ok {
		return fmt.Errorf("nexus: writing %s was cancelled", rel)
	}
	if resp != core.RespAllow && resp != core.RespAllowAlways {
		s.mu.Lock()
		s.denied = true
		s.mu.Unlock()
		return fmt.Errorf("nexus: the person denied writing %s", rel)
	}
	return nil
}

// ask raises an approval for the turn and waits for its answer; ok is
// false when the wait ended without one (cancelled, the turn or the
// process ended).
func (c *client) ask(ctx context.Context, t *agentproc.Turn, id, parent, action, prompt string) (core.Response, bool) {
	s := c.s
	w := &perm{answer: make(chan core.Request, 1), cancel: make(chan struct{})}
	s.mu.Lock()
	s.permN++
	key := fmt.Sprintf("%s#%d", id, s.permN)
	s.perms[key] = w
	s.mu.Unlock()
	// However the wait ends, the agent no longer waits: an answer that
	// comes later is reported as missed, not delivered to nobody.
	defer func() {
		s.mu.Lock()
		delete(s.perms, key)
		s.mu.Unlock()
	}()
	t.Obs(core.Observation{Kind: core.ObsRequest, Key: key, Parent: parent,
		RequestKind: core.RequestApproval, Action: action, Prompt: prompt})
	select {
	case q := <-w.answer:
		return q.Response, true
	case <-w.cancel:
	case <-ctx.Done():
	}
	return "", false
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
	if out := c.outside(action, p.ToolCall); out != "" {
		// Never an edit outside the workspace, whoever would answer: an
		// agent that writes its files itself would write it.
		t.Obs(core.Observation{Kind: core.ObsWarning, Text: fmt.Sprintf("nexus rejected %s: %s is outside the workspace",
			p.ToolCall.ToolCallId, out)})
		s.mu.Lock()
		s.denied = true // an agent that ends its turn on a rejection says so
		s.mu.Unlock()
		if id, ok := pick(p.Options, sdk.PermissionOptionKindRejectOnce, sdk.PermissionOptionKindRejectAlways); ok {
			return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeSelected(id)}, nil
		}
		return cancelled, nil
	}
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
	resp, answered := c.ask(ctx, t, string(p.ToolCall.ToolCallId), string(p.ToolCall.ToolCallId), action, "Allow "+title+"?")
	if !answered {
		return cancelled, nil
	}
	var id sdk.PermissionOptionId
	var ok bool
	switch resp {
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
	if action == "write" && (resp == core.RespAllow || resp == core.RespAllowAlways) {
		// The person allowed this edit: the agent's fs/write_text_file
		// for it does not ask again.
		var paths []string
		for _, l := range p.ToolCall.Locations {
			if cp, err := c.confine(l.Path); err == nil {
				paths = append(paths, cp)
			}
		}
		s.mu.Lock()
		if s.granted == nil {
			s.granted = map[string]bool{}
		}
		if len(p.ToolCall.Locations) == 0 {
			s.grantedAny++
		}
		for _, cp := range paths {
			s.granted[cp] = true
		}
		s.mu.Unlock()
	}
	return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeSelected(id)}, nil
}

// outside is the first file an edit (action write) names, in its
// locations or diffs, that is outside the workspace; "" when none is, or
// for other actions.
func (c *client) outside(action string, tc sdk.ToolCallUpdate) string {
	if action != "write" {
		return ""
	}
	c.s.mu.Lock()
	ws := c.s.workspace
	c.s.mu.Unlock()
	var ps []string
	for _, l := range tc.Locations {
		ps = append(ps, l.Path)
	}
	for _, ct := range tc.Content {
		if ct.Diff != nil {
			ps = append(ps, ct.Diff.Path)
		}
	}
	for _, p := range ps {
		if _, err := agentproc.Confine(ws, p); err != nil {
			return p
		}
	}
	return ""
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
	if u.UsageUpdate != nil && u.UsageUpdate.Cost != nil && strings.EqualFold(u.UsageUpdate.Cost.Currency, "USD") {
		// Another currency is not converted: its usage counts as unpriced.
		s.mu.Lock()
		s.cost, s.priced = max(u.UsageUpdate.Cost.Amount, 0), true
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
			Content: tc.Content, Locations: tc.Locations, RawOutput: tc.RawOutput})
	case u.ToolCallUpdate != nil:
		tc := u.ToolCallUpdate
		c.toolNode(t, sdk.ToolCallUpdate{ToolCallId: tc.ToolCallId, Title: tc.Title, Kind: tc.Kind, Status: tc.Status,
			Content: tc.Content, Locations: tc.Locations, RawOutput: tc.RawOutput})
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
