package acp

import (
	"fmt"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/providers/agentproc"
)

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
