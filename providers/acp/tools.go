package acp

import (
	"fmt"
	"slices"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/providers/agentproc"
)

// toolCall is what the session knows of one of the agent's tool calls:
// enough to say which files it wrote.
type toolCall struct {
	edit   bool // its kind is edit
	open   bool // neither completed nor failed yet
	done   bool // completed
	claims []string
	wrote  []string
	sent   []string
}

// The paths of a tool call are the agent's word and nexus's own: claims
// are the workspace paths an open edit call's locations and diffs name,
// wrote those nexus wrote for it while open (fs/write_text_file), sent
// the paths last reported on its node. A node reports what nexus wrote
// for it, and what an edit claims once it has completed: a failed or
// unfinished edit may have written none of them, or others, and the
// kernel then goes by the call's time window. The list only grows, as
// the kernel keeps a node's latest.
func (c *toolCall) paths() []string {
	ps := slices.Clone(c.sent)
	for _, p := range c.wrote {
		if !slices.Contains(ps, p) {
			ps = append(ps, p)
		}
	}
	if c.done {
		for _, p := range c.claims {
			if !slices.Contains(ps, p) {
				ps = append(ps, p)
			}
		}
	}
	return ps[:min(len(ps), agentproc.MaxPaths)]
}

// report is the paths to put on the call's node: nil when they are the
// ones already reported. Call with mu held.
func (c *toolCall) report() []string {
	ps := c.paths()
	if len(ps) == 0 || slices.Equal(ps, c.sent) {
		return nil
	}
	c.sent = ps
	return ps
}

// claimed are the files an update says its call edits: its locations'
// and its diffs' paths, relative to the workspace.
func claimed(ws string, tc sdk.ToolCallUpdate) []string {
	var ps []string
	for _, l := range tc.Locations {
		ps = append(ps, l.Path)
	}
	for _, c := range tc.Content {
		if c.Diff != nil {
			ps = append(ps, c.Diff.Path)
		}
	}
	return agentproc.WorkspacePaths(ws, ps[:min(len(ps), 4*agentproc.MaxPaths)]...)
}

// toolNode creates or updates the node of a tool call.
func (c *client) toolNode(t *agentproc.Turn, tc sdk.ToolCallUpdate) {
	s := c.s
	id := string(tc.ToolCallId)
	o := core.Observation{Kind: core.ObsNode, Key: id, NodeKind: core.NodeToolCall}
	if tc.Title != nil {
		o.Title = *tc.Title
	}
	o.Text = c.s.toolText(tc.Content)
	claims := claimed(agentproc.Workspace(t.E), tc)
	// Observations that carry paths go out in the order they were made:
	// the kernel keeps a node's latest paths, so an older, shorter list
	// must not land last.
	s.nodes.Lock()
	defer s.nodes.Unlock()
	s.mu.Lock()
	call := s.tools[id]
	if call == nil {
		call = &toolCall{open: true}
		s.tools[id] = call
		o.NodeStatus = core.NodeRunning
	}
	if tc.Kind != nil && *tc.Kind != "" {
		call.edit = *tc.Kind == sdk.ToolKindEdit
	}
	if call.edit && call.open {
		for _, p := range claims {
			if len(call.claims) < agentproc.MaxPaths && !slices.Contains(call.claims, p) {
				call.claims = append(call.claims, p)
			}
		}
	}
	if tc.Status != nil {
		switch *tc.Status {
		case sdk.ToolCallStatusCompleted:
			o.NodeStatus, call.open, call.done = core.NodeCompleted, false, true
		case sdk.ToolCallStatusFailed:
			o.NodeStatus, call.open = core.NodeFailed, false
		}
	}
	o.Paths = call.report()
	if !call.open {
		call.claims, call.wrote = nil, nil // reported: sent keeps them
	}
	s.mu.Unlock()
	if o.Title == "" && o.NodeStatus == "" && o.Text == "" && o.Paths == nil {
		return
	}
	t.Obs(o)
}

// wroteFile reports a file nexus wrote for the agent (fs/write_text_file)
// on the node of the tool call it belongs to: the open edit call that
// names the file, else the only open edit call. ACP does not say which
// call a write is for, and a write put on a command's node would end
// that command's time window, so failing both it gets a node of its own.
func (c *client) wroteFile(t *agentproc.Turn, path string, size int) {
	s := c.s
	s.mu.Lock()
	ws := s.workspace
	s.mu.Unlock()
	rel := agentproc.WorkspacePaths(ws, path)
	if len(rel) == 0 {
		return
	}
	s.nodes.Lock()
	defer s.nodes.Unlock()
	s.mu.Lock()
	o := core.Observation{Kind: core.ObsNode, NodeKind: core.NodeToolCall}
	if o.Key = s.writerOf(rel[0]); o.Key != "" {
		call := s.tools[o.Key]
		if len(call.wrote) < agentproc.MaxPaths && !slices.Contains(call.wrote, rel[0]) {
			call.wrote = append(call.wrote, rel[0])
		}
		o.Paths = call.report()
	} else {
		o.Key, o.Title, o.Paths = "write:"+rel[0], "write "+rel[0], rel
		o.NodeStatus, o.Text = core.NodeCompleted, fmt.Sprintf("wrote %d bytes", size)
	}
	s.mu.Unlock()
	if o.Paths != nil || o.Title != "" {
		t.Obs(o)
	}
}

// writerOf is the tool call a write of rel belongs to, or "" (see
// wroteFile). Call with mu held.
func (s *session) writerOf(rel string) string {
	var named, open []string
	for id, c := range s.tools {
		if !c.edit || !c.open {
			continue
		}
		open = append(open, id)
		if slices.Contains(c.claims, rel) {
			named = append(named, id)
		}
	}
	switch {
	case len(named) > 0:
		return slices.Min(named)
	case len(open) == 1:
		return open[0]
	}
	return ""
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
