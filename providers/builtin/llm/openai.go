package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"sort"
	"strings"
)

// OpenAI is a client for OpenAI-compatible chat completions with tool
// calls, streamed. It reads OPENAI_API_KEY and OPENAI_BASE_URL (default
// https://api.openai.com/v1).
type OpenAI struct {
	Model   string
	BaseURL string
	Key     string
	HTTP    *http.Client
	Retry   Retry
}

// NewOpenAI returns a client configured from the environment.
func NewOpenAI(model string) (*OpenAI, error) {
	key := os.Getenv("OPENAI_API_KEY")
	if key == "" {
		return nil, fmt.Errorf("openai: OPENAI_API_KEY is not set; export it, or use the offline builtin profile")
	}
	base := os.Getenv("OPENAI_BASE_URL")
	if base == "" {
		base = "https://api.openai.com/v1"
	}
	if model == "" {
		model = "gpt-4.1-mini"
	}
	return &OpenAI{Model: model, BaseURL: strings.TrimRight(base, "/"), Key: key, HTTP: http.DefaultClient}, nil
}

// Name implements Client.
func (c *OpenAI) Name() string { return "openai:" + c.Model }

type oaMessage struct {
	Role       string       `json:"role"`
	Content    *string      `json:"content"`
	ToolCalls  []oaToolCall `json:"tool_calls,omitempty"`
	ToolCallID string       `json:"tool_call_id,omitempty"`
}

type oaToolCall struct {
	Index    int    `json:"index"`
	ID       string `json:"id,omitempty"`
	Type     string `json:"type,omitempty"`
	Function struct {
		Name      string `json:"name,omitempty"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// Complete implements Client.
func (c *OpenAI) Complete(ctx context.Context, req Request, onDelta func(string)) (_ Response, err error) {
	hdr := http.Header{"Authorization": {"Bearer " + c.Key}}
	// A server may quote the key in a stream error too.
	defer func() { err = redactorOf(hdr).err(err) }()
	var msgs []oaMessage
	if req.System != "" {
		s := req.System
		msgs = append(msgs, oaMessage{Role: "system", Content: &s})
	}
	for _, m := range req.Messages {
		text := m.Text
		om := oaMessage{Role: m.Role, Content: &text, ToolCallID: m.ToolCallID}
		for i, tc := range m.ToolCalls {
			args, _ := json.Marshal(tc.Args)
			otc := oaToolCall{Index: i, ID: tc.ID, Type: "function"}
			otc.Function.Name, otc.Function.Arguments = tc.Name, string(args)
			om.ToolCalls = append(om.ToolCalls, otc)
		}
		msgs = append(msgs, om)
	}
	var tools []map[string]any
	for _, t := range req.Tools {
		tools = append(tools, map[string]any{"type": "function", "function": map[string]any{
			"name": t.Name, "description": t.Description, "parameters": schema(t)}})
	}
	body := map[string]any{"model": c.Model, "messages": msgs, "stream": true,
		"stream_options": map[string]any{"include_usage": true}}
	if len(tools) > 0 {
		body["tools"] = tools
	}
	rc, err := post(ctx, c.HTTP, "openai", c.BaseURL+"/chat/completions", hdr, body, c.Retry)
	if err != nil {
		return Response{}, err
	}
	defer rc.Close()
	resp := Response{Model: c.Model}
	var text strings.Builder
	calls := map[int]*oaToolCall{}
	err = sse(rc, func(_, data string) error {
		if data == "[DONE]" {
			return nil
		}
		var chunk struct {
			Model   string `json:"model"`
			Choices []struct {
				Delta struct {
					Content   string       `json:"content"`
					ToolCalls []oaToolCall `json:"tool_calls"`
				} `json:"delta"`
			} `json:"choices"`
			Usage *struct {
				Prompt     int `json:"prompt_tokens"`
				Completion int `json:"completion_tokens"`
			} `json:"usage"`
		}
		if err := json.Unmarshal([]byte(data), &chunk); err != nil {
			return fmt.Errorf("openai: bad stream chunk: %w", err)
		}
		for _, ch := range chunk.Choices {
			if d := ch.Delta.Content; d != "" {
				text.WriteString(d)
				if onDelta != nil {
					onDelta(d)
				}
			}
			for _, tc := range ch.Delta.ToolCalls {
				cur := calls[tc.Index]
				if cur == nil {
					cur = &oaToolCall{Index: tc.Index}
					calls[tc.Index] = cur
				}
				if tc.ID != "" {
					cur.ID = tc.ID
				}
				if tc.Function.Name != "" {
					cur.Function.Name = tc.Function.Name
				}
				cur.Function.Arguments += tc.Function.Arguments
			}
		}
		if chunk.Usage != nil {
			resp.Usage.InputTokens, resp.Usage.OutputTokens = chunk.Usage.Prompt, chunk.Usage.Completion
		}
		return nil
	})
	if err != nil {
		return Response{}, err
	}
	resp.Text = text.String()
	idx := make([]int, 0, len(calls))
	for i := range calls {
		idx = append(idx, i)
	}
	sort.Ints(idx)
	for _, i := range idx {
		tc := calls[i]
		args, err := argsOf(tc.Function.Arguments)
		if err != nil {
			return Response{}, fmt.Errorf("openai: %s: %w", tc.Function.Name, err)
		}
		resp.ToolCalls = append(resp.ToolCalls, ToolCall{ID: tc.ID, Name: tc.Function.Name, Args: args})
	}
	resp.Usage.CostUSD = Cost(c.Model, resp.Usage.InputTokens, resp.Usage.OutputTokens)
	resp.Usage.Unpriced = !Priced(c.Model)
	return resp, nil
}
