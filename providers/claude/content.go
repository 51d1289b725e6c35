package claude

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/providers/agentproc"
)

// maxToolText bounds the tool output kept on a node.
const maxToolText = 16 << 10

// cutMark ends tool output that nexus cut to maxToolText bytes.
const cutMark = "\n[... cut by nexus]"

type block struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

type message struct {
	ID      string          `json:"id"`
	Content json.RawMessage `json:"content"`
}

func (m *message) blocks() []block {
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		return []block{{Type: "text", Text: s}}
	}
	var bs []block
	_ = json.Unmarshal(m.Content, &bs)
	return bs
}

type streamEvent struct {
	Type    string `json:"type"`
	Index   int    `json:"index"`
	Message struct {
		ID string `json:"id"`
	} `json:"message"`
	Block struct {
		Type string `json:"type"`
	} `json:"content_block"`
	Delta struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"delta"`
}

// streamEvent maps raw Anthropic deltas (--include-partial-messages):
// each text block of each message is one assistant_message node, keyed
// "msg/index", streamed as it comes.
func (s *session) streamEvent(t *agentproc.Turn, f *frame) {
	var ev streamEvent
	if json.Unmarshal(f.Event, &ev) != nil {
		return
	}
	switch ev.Type {
	case "message_start":
		s.mu.Lock()
		s.curMsg[f.parent()] = ev.Message.ID
		s.mu.Unlock()
	case "content_block_start":
		if ev.Block.Type != "text" {
			return
		}
		s.mu.Lock()
		msg := s.curMsg[f.parent()]
		key := fmt.Sprintf("%s/%d", msg, ev.Index)
		s.streamed[msg] = true
		s.open[f.parent()+"\x00"+fmt.Sprint(ev.Index)] = key
		s.mu.Unlock()
	case "content_block_delta":
		if ev.Delta.Type != "text_delta" || ev.Delta.Text == "" {
			return
		}
		s.mu.Lock()
		key := s.open[f.parent()+"\x00"+fmt.Sprint(ev.Index)]
		s.mu.Unlock()
		if key != "" {
			t.Obs(core.Observation{Kind: core.ObsText, Key: key, Parent: f.parent(), Text: ev.Delta.Text})
		}
	case "content_block_stop":
		s.mu.Lock()
		k := f.parent() + "\x00" + fmt.Sprint(ev.Index)
		key := s.open[k]
		delete(s.open, k)
		s.mu.Unlock()
		if key != "" {
			t.Obs(core.Observation{Kind: core.ObsText, Key: key, Parent: f.parent(), Final: true})
		}
	}
}

// assistant maps a whole assistant message: text that was not streamed,
// tool calls (nodes; Task is a subagent; TodoWrite and Task* update the
// todo list).
func (s *session) assistant(t *agentproc.Turn, f *frame) {
	var m message
	if json.Unmarshal(f.Message, &m) != nil {
		return
	}
	s.mu.Lock()
	streamed := s.streamed[m.ID]
	s.mu.Unlock()
	for i, b := range m.blocks() {
		switch b.Type {
		case "text":
			if !streamed && b.Text != "" {
				t.Obs(core.Observation{Kind: core.ObsText, Key: fmt.Sprintf("%s/t%d", m.ID, i), Parent: f.parent(),
					Text: b.Text, Final: true})
			}
		case "tool_use":
			s.toolUse(t, f.parent(), b)
		}
	}
}

func (s *session) toolUse(t *agentproc.Turn, parent string, b block) {
	var in map[string]any
	_ = json.Unmarshal(b.Input, &in)
	s.mu.Lock()
	s.tools[b.ID] = b.Name
	if p := writtenPath(b.Name, in); p != "" {
		s.writes[b.ID] = p
	}
	s.mu.Unlock()
	kind := core.NodeToolCall
	if b.Name == "Task" || b.Name == "Agent" {
		kind = core.NodeSubagent
	}
	t.Obs(core.Observation{Kind: core.ObsNode, Key: b.ID, Parent: parent, NodeKind: kind, NodeStatus: core.NodeRunning,
		Title: toolTitle(b.Name, in)})
	s.mu.Lock()
	if kind == core.NodeSubagent {
		s.plan.subagent(b.ID, parent, toolTitle(b.Name, in))
	}
	changed := s.plan.toolUse(parent, b.ID, b.Name, in)
	items := s.plan.items()
	s.mu.Unlock()
	if changed {
		t.Obs(core.Observation{Kind: core.ObsPlan, Items: items})
	}
	if b.Name == "ExitPlanMode" {
		// Plan mode: the plan Claude proposes before it acts.
		md, _ := in["plan"].(string)
		if steps := proposedItems(md); len(steps) > 0 {
			t.Obs(core.Observation{Kind: core.ObsPlan, Key: core.PlanKeyProposed, Items: steps})
		}
	}
}

// toolResults closes tool nodes with their output, and a write tool's
// node with the file it wrote when it succeeded (a failed one wrote
// nothing, or not all it meant to: the kernel then attributes by the
// call's time window).
func (s *session) toolResults(t *agentproc.Turn, f *frame) {
	var m message
	if json.Unmarshal(f.Message, &m) != nil {
		return
	}
	for _, b := range m.blocks() {
		if b.Type != "tool_result" {
			continue
		}
		text := resultText(b.Content)
		status := core.NodeCompleted
		if b.IsError {
			status = core.NodeFailed
		}
		s.mu.Lock()
		changed := s.plan.toolResult(b.ToolUseID, text, b.IsError)
		items := s.plan.items()
		wrote, write := s.writes[b.ToolUseID]
		delete(s.writes, b.ToolUseID)
		s.mu.Unlock()
		if changed {
			t.Obs(core.Observation{Kind: core.ObsPlan, Items: items})
		}
		var paths []string
		if write && !b.IsError {
			paths = agentproc.WorkspacePaths(agentproc.Workspace(t.E), wrote)
		}
		text = agentproc.Cut(text, maxToolText, cutMark)
		t.Obs(core.Observation{Kind: core.ObsNode, Key: b.ToolUseID, NodeStatus: status, Text: orDash(text), Paths: paths})
	}
}

func orDash(s string) string {
	if strings.TrimSpace(s) == "" {
		return "(no output)"
	}
	return s
}

func resultText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []block
	_ = json.Unmarshal(raw, &parts)
	var out []string
	for _, p := range parts {
		if p.Type == "text" {
			out = append(out, p.Text)
		}
	}
	return strings.Join(out, "\n")
}

// toolTitle is a node title: the tool and what it acts on.
func toolTitle(name string, in map[string]any) string {
	for _, k := range []string{"command", "file_path", "path", "pattern", "url", "description", "query", "subject"} {
		if v, ok := in[k].(string); ok && v != "" {
			v = agentproc.Cut(v, 120, "...")
			return name + ": " + v
		}
	}
	return name
}

// writtenPath is the file a tool that writes one names in its input, or
// "" for other tools.
func writtenPath(tool string, in map[string]any) string {
	key := "file_path"
	switch tool {
	case "Write", "Edit", "MultiEdit":
	case "NotebookEdit":
		key = "notebook_path"
	default:
		return ""
	}
	p, _ := in[key].(string)
	return p
}

// actionOf is the nexus action kind of a tool, for "allow always".
func actionOf(tool string) string {
	switch tool {
	case "Bash", "BashOutput", "KillShell":
		return "command"
	case "Write", "Edit", "MultiEdit", "NotebookEdit":
		return "write"
	}
	return ""
}
