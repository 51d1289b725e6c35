package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"
)

// Anthropic is a client for the Anthropic messages API with tool use,
// streamed. It reads ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL (default
// https://api.anthropic.com).
type Anthropic struct {
	Model     string
	BaseURL   string
	Key       string
	MaxTokens int
	HTTP      *http.Client
	Retry     Retry
}

// NewAnthropic returns a client configured from the environment.
func NewAnthropic(model string) (*Anthropic, error) {
	key := os.Getenv("ANTHROPIC_API_KEY")
	if key == "" {
		return nil, fmt.Errorf("anthropic: ANTHROPIC_API_KEY is not set; export it, or use the offline builtin profile")
	}
	base := os.Getenv("ANTHROPIC_BASE_URL")
	if base == "" {
		base = "https://api.anthropic.com"
	}
	if model == "" {
		model = "claude-sonnet-4-5"
	}
	return &Anthropic{Model: model, BaseURL: strings.TrimRight(base, "/"), Key: key, MaxTokens: 4096, HTTP: http.DefaultClient}, nil
}

// Name implements Client.
func (c *Anthropic) Name() string { return "anthropic:" + c.Model }

type anBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
	Content   string          `json:"content,omitempty"`
}

type anMessage struct {
	Role    string    `json:"role"`
	Content []anBlock `json:"content"`
}

// messages converts the conversation: tool results become user messages
// of tool_result blocks, merged with a following user message.
func anMessages(in []Message) []anMessage {
	var out []anMessage
	add := func(role string, b anBlock) {
		if n := len(out); n > 0 && out[n-1].Role == role {
			out[n-1].Content = append(out[n-1].Content, b)
			return
		}
		out = append(out, anMessage{Role: role, Content: []anBlock{b}})
	}
	for _, m := range in {
		switch m.Role {
		case "tool":
			add("user", anBlock{Type: "tool_result", ToolUseID: m.ToolCallID, Content: m.Text})
		case "assistant":
			if m.Text != "" {
				add("assistant", anBlock{Type: "text", Text: m.Text})
			}
			for _, tc := range m.ToolCalls {
				input, _ := json.Marshal(tc.Args)
				add("assistant", anBlock{Type: "tool_use", ID: tc.ID, Name: tc.Name, Input: input})
			}
		default:
			add("user", anBlock{Type: "text", Text: m.Text})
		}
	}
	return out
}

// Complete implements Client.
func (c *Anthropic) Complete(ctx context.Context, req Request, onDelta func(string)) (_ Response, err error) {
	hdr := http.Header{"X-Api-Key": {c.Key}, "Anthropic-Version": {"2023-06-01"}}
	// A server may quote the key in a stream error too.
	defer func() { err = redactorOf(hdr).err(err) }()
	var tools []map[string]any
	for _, t := range req.Tools {
		tools = append(tools, map[string]any{"name": t.Name, "description": t.Description, "input_schema": schema(t)})
	}
	body := map[string]any{"model": c.Model, "max_tokens": c.MaxTokens, "messages": anMessages(req.Messages), "stream": true}
	if req.System != "" {
		body["system"] = req.System
	}
	if len(tools) > 0 {
		body["tools"] = tools
	}
	rc, err := post(ctx, c.HTTP, "anthropic", c.BaseURL+"/v1/messages", hdr, body, c.Retry)
	if err != nil {
		return Response{}, err
	}
	defer rc.Close()
	resp := Response{Model: c.Model}
	var text strings.Builder
	type block struct {
		kind, id, name string
		json           strings.Builder
	}
	blocks := map[int]*block{}
	var order []int
	err = sse(rc, func(event, data string) error {
		var ev struct {
			Type    string `json:"type"`
			Index   int    `json:"index"`
			Message struct {
				Usage struct {
					Input int `json:"input_tokens"`
				} `json:"usage"`
			} `json:"message"`
			ContentBlock anBlock `json:"content_block"`
			Delta        struct {
				Type        string `json:"type"`
				Text        string `json:"text"`
				PartialJSON string `json:"partial_json"`
			} `json:"delta"`
			Usage struct {
				Output int `json:"output_tokens"`
			} `json:"usage"`
			Error struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(data), &ev); err != nil {
			return fmt.Errorf("anthropic: bad stream event: %w", err)
		}
		switch ev.Type {
		case "message_start":
			resp.Usage.InputTokens = ev.Message.Usage.Input
		case "content_block_start":
			blocks[ev.Index] = &block{kind: ev.ContentBlock.Type, id: ev.ContentBlock.ID, name: ev.ContentBlock.Name}
			order = append(order, ev.Index)
			if ev.ContentBlock.Type == "text" && ev.ContentBlock.Text != "" {
				text.WriteString(ev.ContentBlock.Text)
			}
		case "content_block_delta":
			b := blocks[ev.Index]
			if b == nil {
				return fmt.Errorf("anthropic: delta for unknown block %d", ev.Index)
			}
			switch ev.Delta.Type {
			case "text_delta":
				text.WriteString(ev.Delta.Text)
				if onDelta != nil {
					onDelta(ev.Delta.Text)
				}
			case "input_json_delta":
				b.json.WriteString(ev.Delta.PartialJSON)
			}
		case "message_delta":
			resp.Usage.OutputTokens = ev.Usage.Output
		case "error":
			return fmt.Errorf("anthropic: stream error: %s", ev.Error.Message)
		}
		return nil
	})
	if err != nil {
		return Response{}, err
	}
	resp.Text = text.String()
	for _, i := range order {
		b := blocks[i]
		if b.kind != "tool_use" {
			continue
		}
		args, err := argsOf(b.json.String())
		if err != nil {
			return Response{}, fmt.Errorf("anthropic: %s: %w", b.name, err)
		}
		resp.ToolCalls = append(resp.ToolCalls, ToolCall{ID: b.id, Name: b.name, Args: args})
	}
	resp.Usage.CostUSD = Cost(c.Model, resp.Usage.InputTokens, resp.Usage.OutputTokens)
	resp.Usage.Unpriced = !Priced(c.Model)
	return resp, nil
}
