package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

const testKey = "sk-test-SECRET-123"

// fakeOpenAI answers chat completions: a tool call for the first request,
// text once a tool result is present. fail makes the first n requests
// answer with that status.
func fakeOpenAI(t *testing.T, failStatus int, failN int32) (*httptest.Server, *atomic.Int32) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := calls.Add(1)
		if r.Header.Get("Authorization") != "Bearer "+testKey {
			http.Error(w, "bad key", 401)
			return
		}
		if n <= failN {
			http.Error(w, `{"error":"busy"}`, failStatus)
			return
		}
		var body struct {
			Messages []struct {
				Role string `json:"role"`
			} `json:"messages"`
			Tools []any `json:"tools"`
		}
		b, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(b, &body); err != nil || len(body.Tools) == 0 {
			http.Error(w, "bad body", 400)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		hasTool := body.Messages[len(body.Messages)-1].Role == "tool"
		if !hasTool {
			fmt.Fprint(w, "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_1\",\"function\":{\"name\":\"read_file\",\"arguments\":\"{\\\"pa\"}}]}}]}\n\n")
			fmt.Fprint(w, "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"th\\\":\\\"README.md\\\"}\"}}]}}]}\n\n")
		} else {
			fmt.Fprint(w, "data: {\"choices\":[{\"delta\":{\"content\":\"The README \"}}]}\n\n")
			fmt.Fprint(w, "data: {\"choices\":[{\"delta\":{\"content\":\"says hi.\"}}]}\n\n")
		}
		fmt.Fprint(w, "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":151,\"completion_tokens\":77}}\n\n")
		fmt.Fprint(w, "data: [DONE]\n\n")
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

func fakeAnthropic(t *testing.T, failStatus int, failN int32) (*httptest.Server, *atomic.Int32) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := calls.Add(1)
		if r.Header.Get("X-Api-Key") != testKey || r.URL.Path != "/v1/messages" {
			http.Error(w, "bad key or path", 401)
			return
		}
		if n <= failN {
			http.Error(w, `{"type":"error"}`, failStatus)
			return
		}
		var body struct {
			Messages []struct {
				Content []struct {
					Type string `json:"type"`
				} `json:"content"`
			} `json:"messages"`
		}
		b, _ := io.ReadAll(r.Body)
		json.Unmarshal(b, &body)
		last := body.Messages[len(body.Messages)-1]
		w.Header().Set("Content-Type", "text/event-stream")
		ev := func(name, data string) { fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, data) }
		ev("message_start", `{"type":"message_start","message":{"usage":{"input_tokens":151}}}`)
		if last.Content[0].Type != "tool_result" {
			ev("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"read_file"}}`)
			ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"path\":"}}`)
			ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"\"README.md\"}"}}`)
		} else {
			ev("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`)
			ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"The README says hi."}}`)
		}
		ev("content_block_stop", `{"type":"content_block_stop","index":0}`)
		ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":77}}`)
		ev("message_stop", `{"type":"message_stop"}`)
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

var fastRetry = Retry{Max: 3, Base: time.Millisecond, Cap: 5 * time.Millisecond}

// toolLoop runs a read-then-answer exchange against a client.
func toolLoop(t *testing.T, c Client) Response {
	t.Helper()
	ctx := context.Background()
	req := Request{Messages: []Message{{Role: "user", Text: "read README.md and summarize it"}}, Tools: Tools}
	r1, err := c.Complete(ctx, req, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(r1.ToolCalls) != 1 || r1.ToolCalls[0].Name != "read_file" || r1.ToolCalls[0].Args["path"] != "README.md" {
		t.Fatalf("first response %+v", r1)
	}
	req.Messages = append(req.Messages, Message{Role: "assistant", ToolCalls: r1.ToolCalls},
		Message{Role: "tool", ToolCallID: r1.ToolCalls[0].ID, Text: "# hi"})
	var streamed strings.Builder
	r2, err := c.Complete(ctx, req, func(d string) { streamed.WriteString(d) })
	if err != nil {
		t.Fatal(err)
	}
	if r2.Text != "The README says hi." || streamed.String() != r2.Text {
		t.Fatalf("final %q, streamed %q", r2.Text, streamed.String())
	}
	if r2.Usage.InputTokens != 151 || r2.Usage.OutputTokens != 77 {
		t.Fatalf("usage %+v", r2.Usage)
	}
	return r2
}

func TestOpenAIToolLoopAndRetry(t *testing.T) {
	srv, calls := fakeOpenAI(t, 500, 1)
	c := &OpenAI{Model: "gpt-4o-mini", BaseURL: srv.URL, Key: testKey, HTTP: srv.Client(), Retry: fastRetry}
	r := toolLoop(t, c)
	if calls.Load() != 3 {
		t.Fatalf("%d requests, want 3 (a 500 retried, then two calls)", calls.Load())
	}
	if r.Usage.CostUSD <= 0 {
		t.Fatalf("no cost reported for a priced model: %+v", r.Usage)
	}
}

func TestAnthropicToolLoopAndRetry(t *testing.T) {
	srv, calls := fakeAnthropic(t, 503, 1)
	c := &Anthropic{Model: "claude-sonnet-4-5", BaseURL: srv.URL, Key: testKey, MaxTokens: 100, HTTP: srv.Client(), Retry: fastRetry}
	toolLoop(t, c)
	if calls.Load() != 3 {
		t.Fatalf("%d requests, want 3", calls.Load())
	}
}

// TestRateLimitStormGivesUp: a server that answers 429 forever gets the
// bounded number of tries and a clear error without the key in it.
func TestRateLimitStormGivesUp(t *testing.T) {
	for name, mk := range map[string]func() (Client, *atomic.Int32){
		"openai": func() (Client, *atomic.Int32) {
			srv, n := fakeOpenAI(t, 429, 1<<30)
			return &OpenAI{Model: "m", BaseURL: srv.URL, Key: testKey, HTTP: srv.Client(), Retry: fastRetry}, n
		},
		"anthropic": func() (Client, *atomic.Int32) {
			srv, n := fakeAnthropic(t, 429, 1<<30)
			return &Anthropic{Model: "m", BaseURL: srv.URL, Key: testKey, HTTP: srv.Client(), Retry: fastRetry}, n
		},
	} {
		c, n := mk()
		_, err := c.Complete(context.Background(), Request{Messages: []Message{{Role: "user", Text: "x"}}, Tools: Tools}, nil)
		if err == nil || !strings.Contains(err.Error(), "429") || !strings.Contains(err.Error(), "gave up after 4 tries") {
			t.Errorf("%s: err = %v", name, err)
		}
		if err != nil && strings.Contains(err.Error(), testKey) {
			t.Errorf("%s: the error leaks the key", name)
		}
		if n.Load() != 4 {
			t.Errorf("%s: %d tries, want 4", name, n.Load())
		}
	}
}

func TestClientErrorDoesNotRetry(t *testing.T) {
	srv, n := fakeOpenAI(t, 400, 1<<30)
	c := &OpenAI{Model: "m", BaseURL: srv.URL, Key: testKey, HTTP: srv.Client(), Retry: fastRetry}
	if _, err := c.Complete(context.Background(), Request{Messages: []Message{{Role: "user", Text: "x"}}, Tools: Tools}, nil); err == nil {
		t.Fatal("a 400 succeeded")
	}
	if n.Load() != 1 {
		t.Fatalf("a 400 was tried %d times, want once", n.Load())
	}
}
