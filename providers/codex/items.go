package codex

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/providers/agentproc"
)

const (
	maxToolText = 16 << 10
	// cutMark ends tool output that nexus cut to maxToolText bytes.
	cutMark = "\n[... cut by nexus]"
	// maxPatches bounds the open fileChange items a turn remembers the
	// files of: past it, an approval names no files and asks the person.
	maxPatches = 256
)

// line handles one line of the app-server's stdout: a response to one of
// our calls, a server request or a notification. It needs no process,
// only the rpc to answer on, so tests and fuzzing drive it directly. It
// reports whether the line was JSON-RPC (the Lifecycle counts the
// others).
func (s *session) line(r *rpc, b []byte) bool {
	m, ok := decodeFrame(b)
	if !ok {
		return false
	}
	switch {
	case m.Method == "" && m.ID != nil:
		r.deliver(m)
	case m.ID != nil:
		s.serverRequest(r, m)
	default:
		s.notification(m)
	}
	return true
}

// item is the union of the item fields nexus reads.
type item struct {
	Type             string          `json:"type"`
	ID               string          `json:"id"`
	Text             string          `json:"text"`
	Command          json.RawMessage `json:"command"`
	Status           string          `json:"status"`
	AggregatedOutput *string         `json:"aggregatedOutput"`
	ExitCode         *int            `json:"exitCode"`
	Changes          []struct {
		Path string          `json:"path"`
		Kind json.RawMessage `json:"kind"`
		Diff string          `json:"diff"`
	} `json:"changes"`
	Server string `json:"server"`
	Tool   string `json:"tool"`
	Query  string `json:"query"`
}

// notification maps one app-server notification to observations.
func (s *session) notification(m msg) {
	t := s.Turn()
	if t == nil || t.Ended() {
		return
	}
	var p struct {
		TurnID string `json:"turnId"`
		ItemID string `json:"itemId"`
		Delta  string `json:"delta"`
		Item   item   `json:"item"`
		Turn   struct {
			ID     string `json:"id"`
			Status string `json:"status"`
			Error  *struct {
				Message string `json:"message"`
			} `json:"error"`
		} `json:"turn"`
		Plan []struct {
			Step   string `json:"step"`
			Status string `json:"status"`
		} `json:"plan"`
		TokenUsage struct {
			Last struct {
				In     int `json:"inputTokens"`
				Out    int `json:"outputTokens"`
				Reason int `json:"reasoningOutputTokens"`
			} `json:"last"`
		} `json:"tokenUsage"`
		Message   string `json:"message"`
		WillRetry bool   `json:"willRetry"`
		Error     struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	_ = json.Unmarshal(m.Params, &p)
	switch m.Method {
	case "turn/started":
		s.mu.Lock()
		s.turnID = p.Turn.ID
		s.mu.Unlock()
	case "item/agentMessage/delta":
		s.mu.Lock()
		s.texts[p.ItemID] = true
		s.mu.Unlock()
		t.Obs(core.Observation{Kind: core.ObsText, Key: p.ItemID, Text: p.Delta})
	case "item/started":
		s.itemStarted(t, p.Item)
	case "item/completed":
		s.itemCompleted(t, p.Item)
	case "turn/plan/updated":
		var items []core.PlanItem
		for _, x := range p.Plan {
			items = append(items, core.PlanItem{Text: x.Step, Status: planStatus(x.Status)})
		}
		t.Obs(core.Observation{Kind: core.ObsPlan, Items: items})
	case "thread/tokenUsage/updated":
		s.mu.Lock()
		s.usageN++
		n := s.usageN
		s.mu.Unlock()
		t.Obs(core.Observation{Kind: core.ObsLLM, Key: fmt.Sprintf("codex:%s:%d", p.TurnID, n), Model: "codex", NoCost: true,
			TokensIn: agentproc.Count(p.TokenUsage.Last.In), TokensOut: agentproc.Count(p.TokenUsage.Last.Out) + agentproc.Count(p.TokenUsage.Last.Reason)})
	case "warning", "configWarning":
		if p.Message != "" {
			t.Obs(core.Observation{Kind: core.ObsWarning, Text: "codex: " + p.Message})
		}
	case "error":
		if p.WillRetry {
			t.Obs(core.Observation{Kind: core.ObsWarning, Text: "codex (retrying): " + p.Error.Message})
		} else {
			s.mu.Lock()
			s.failure = p.Error.Message
			s.mu.Unlock()
		}
	case "turn/completed":
		s.turnCompleted(t, p.Turn.Status, p.Turn.Error)
	}
}

func (s *session) turnCompleted(t *agentproc.Turn, status string, e *struct {
	Message string `json:"message"`
}) {
	s.mu.Lock()
	failure := s.failure
	s.turnID = ""
	s.mu.Unlock()
	switch status {
	case "completed":
		t.End(core.AttemptCompleted, "")
	case "interrupted":
		t.End(core.AttemptInterrupted, "interrupted")
	default:
		msg := failure
		if e != nil && e.Message != "" {
			msg = e.Message
		}
		if msg == "" {
			msg = "the turn " + status
		}
		t.End(core.AttemptFailed, "codex: "+msg)
	}
}

func (s *session) itemStarted(t *agentproc.Turn, it item) {
	if it.Type == "fileChange" {
		// Its approval, if Codex asks for one, does not name the files.
		s.mu.Lock()
		if len(s.patches) < maxPatches {
			s.patches[it.ID] = changedPaths(it)
		}
		s.mu.Unlock()
	}
	if title, ok := itemTitle(it); ok {
		t.Obs(core.Observation{Kind: core.ObsNode, Key: it.ID, NodeKind: core.NodeToolCall, NodeStatus: core.NodeRunning, Title: title})
	}
}

func (s *session) itemCompleted(t *agentproc.Turn, it item) {
	if it.Type == "fileChange" {
		s.mu.Lock()
		delete(s.patches, it.ID)
		s.mu.Unlock()
	}
	if it.Type == "agentMessage" {
		s.mu.Lock()
		streamed := s.texts[it.ID]
		delete(s.texts, it.ID)
		s.mu.Unlock()
		text := ""
		if !streamed {
			text = it.Text
		}
		if streamed || text != "" {
			t.Obs(core.Observation{Kind: core.ObsText, Key: it.ID, Text: text, Final: true})
		}
		return
	}
	title, ok := itemTitle(it)
	if !ok {
		return
	}
	status := core.NodeCompleted
	if it.Status == "failed" || it.Status == "declined" || (it.ExitCode != nil && *it.ExitCode != 0) {
		status = core.NodeFailed
	}
	text := ""
	if it.AggregatedOutput != nil {
		text = *it.AggregatedOutput
	}
	if it.ExitCode != nil {
		text = strings.TrimSpace(text + fmt.Sprintf("\n(exit %d)", *it.ExitCode))
	}
	for _, c := range it.Changes {
		text += c.Path + "\n" + c.Diff
	}
	if text == "" {
		text = it.Status
	}
	text = cut(text)
	// A patch that failed or was declined changed none of its files, or
	// not all: it names none, and the kernel goes by the item's window.
	var paths []string
	if it.Type == "fileChange" && status == core.NodeCompleted {
		paths = agentproc.WorkspacePaths(agentproc.Workspace(t.E), changedPaths(it)...)
	}
	t.Obs(core.Observation{Kind: core.ObsNode, Key: it.ID, NodeKind: core.NodeToolCall, NodeStatus: status, Title: title, Text: text,
		Paths: paths})
}

// changedPaths are the files a fileChange item changed: each change's
// path, and the path an update moved its file to (kind.move_path).
func changedPaths(it item) []string {
	var ps []string
	for _, c := range it.Changes {
		if len(ps) >= 4*agentproc.MaxPaths {
			break // WorkspacePaths keeps MaxPaths of them anyway
		}
		ps = append(ps, c.Path)
		var k struct {
			MovePath string `json:"move_path"`
		}
		if json.Unmarshal(c.Kind, &k) == nil && k.MovePath != "" {
			ps = append(ps, k.MovePath)
		}
	}
	return ps
}

// cut bounds tool output to maxToolText bytes on a rune boundary.
func cut(s string) string { return agentproc.Cut(s, maxToolText, cutMark) }

// itemTitle names the tool items that become nodes.
func itemTitle(it item) (string, bool) {
	switch it.Type {
	case "commandExecution":
		return "command: " + commandText(it.Command), true
	case "fileChange":
		var paths []string
		for _, c := range it.Changes {
			paths = append(paths, c.Path)
		}
		return "edit: " + strings.Join(paths, ", "), true
	case "mcpToolCall":
		return "mcp: " + it.Server + "/" + it.Tool, true
	case "webSearch":
		return "web search: " + it.Query, true
	}
	return "", false
}

// commandText is a command given as a string or as argv.
func commandText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var argv []string
	_ = json.Unmarshal(raw, &argv)
	return strings.Join(argv, " ")
}

func planStatus(s string) core.PlanItemStatus {
	switch s {
	case "completed":
		return core.ItemCompleted
	case "inProgress", "in_progress":
		return core.ItemInProgress
	}
	return core.ItemPending
}
