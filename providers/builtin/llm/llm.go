package llm

import (
	"context"
	"encoding/json"
)

// Message is one entry of a model conversation.
type Message struct {
	Role string `json:"role"` // system, user, assistant, tool
	Text string `json:"text,omitempty"`
	// ToolCalls are the assistant's tool calls (role assistant).
	ToolCalls []ToolCall `json:"toolCalls,omitempty"`
	// ToolCallID answers a tool call (role tool).
	ToolCallID string `json:"toolCallId,omitempty"`
}

// ToolCall is a request from the model to run one action.
type ToolCall struct {
	ID   string            `json:"id"`
	Name string            `json:"name"`
	Args map[string]string `json:"args"`
}

// Tool describes an action the model may call.
type Tool struct {
	Name        string
	Description string
	Params      []Param
}

// Param is one string parameter of a tool.
type Param struct {
	Name, Description string
	Required          bool
}

// Request is one planning call.
type Request struct {
	Model    string    `json:"model"`
	System   string    `json:"system,omitempty"`
	Messages []Message `json:"messages"`
	Tools    []Tool    `json:"-"`
}

// Usage is what a call cost.
type Usage struct {
	InputTokens  int     `json:"inputTokens"`
	OutputTokens int     `json:"outputTokens"`
	CostUSD      float64 `json:"costUsd"`
	// Unpriced: the model is not in the price table, so CostUSD is
	// unknown rather than 0.
	Unpriced bool `json:"unpriced,omitempty"`
}

// Response is the model's answer: text, tool calls, or both. Plan is the
// list of steps the model intends (the sim model states it; for other
// models it is empty and the todo list grows with the tool calls).
type Response struct {
	Text      string     `json:"text,omitempty"`
	ToolCalls []ToolCall `json:"toolCalls,omitempty"`
	Plan      []string   `json:"plan,omitempty"`
	Usage     Usage      `json:"usage"`
	Model     string     `json:"model"`
}

// Client is a model backend. Complete streams text through onDelta (which
// may be nil) and returns the whole response.
type Client interface {
	Name() string
	Complete(ctx context.Context, req Request, onDelta func(string)) (Response, error)
}

// Encode is the journaled form of a response.
func (r Response) Encode() string {
	b, _ := json.Marshal(r)
	return string(b)
}

// DecodeResponse reads a journaled response.
func DecodeResponse(s string) (Response, error) {
	var r Response
	err := json.Unmarshal([]byte(s), &r)
	return r, err
}

// Tools is the action set of the built-in agent.
var Tools = []Tool{
	{Name: "read_file", Description: "Read a file of the workspace.", Params: []Param{{"path", "path relative to the workspace", true}}},
	{Name: "write_file", Description: "Write a file of the workspace (replacing it).", Params: []Param{{"path", "path relative to the workspace", true}, {"content", "the whole new content", true}}},
	{Name: "edit_file", Description: "Replace one exact occurrence of old with new in a file.", Params: []Param{{"path", "path relative to the workspace", true}, {"old", "text to replace, occurring exactly once", true}, {"new", "replacement text", true}}},
	{Name: "list_dir", Description: "List a directory of the workspace.", Params: []Param{{"path", "directory, . for the root", false}}},
	{Name: "search", Description: "Search files for a regular expression (Go syntax); .gitignore is respected.", Params: []Param{{"pattern", "regular expression", true}, {"path", "directory to search, default the root", false}}},
	{Name: "run_command", Description: "Run a shell command in the workspace.", Params: []Param{{"command", "the command line", true}}},
}
