package e2e

// The fake model servers the real agent CLIs talk to in the end-to-end
// tests (PROTOCOLS.md "Fake model server"): each binds 127.0.0.1 and
// chooses its scripted reply from the last user text of the request.
//
// Script (the same words for every API):
//
//	"run: CMD"    a shell tool call running CMD (Bash, exec_command,
//	              run_shell_command); once the request carries its result:
//	              "tool said: <output>"
//	"write: PATH" a tool call that creates PATH (Claude Code's Write,
//	              Codex's apply_patch); then "tool said: <output>"
//	"ask: Q"      a question (AskUserQuestion) with options red and blue
//	"todo"        a todo list tool call
//	"recall"      "first: <the first user text of the conversation>",
//	              which shows whether a resumed session kept its history
//	"history"     "history: <every earlier user text, joined by | >",
//	              which shows what the agent's own conversation holds
//	"...slow..."  40 chunks 150 ms apart, for interrupts and steering
//	anything else "echo: TEXT"
//
// A mission's compiled turn is read by its last line, "Task: TEXT".

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// anthropicModel starts a fake Anthropic Messages API and points the
// Claude CLIs at it (ANTHROPIC_BASE_URL, a fake key).
func anthropicModel(t *testing.T) *fakeModel {
	t.Helper()
	m := startFakeModel(t, anthropicAPI)
	t.Setenv("ANTHROPIC_BASE_URL", m.URL)
	t.Setenv("ANTHROPIC_API_KEY", "fake-key")
	return m
}

// fakeModel is one fake API server; texts lists the user texts it saw.
type fakeModel struct {
	URL   string
	mu    sync.Mutex
	texts []string
}

func (m *fakeModel) saw(text string) {
	m.mu.Lock()
	m.texts = append(m.texts, text)
	m.mu.Unlock()
}

// Texts returns the last user texts of the requests so far.
func (m *fakeModel) Texts() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.texts...)
}

func startFakeModel(t *testing.T, h func(m *fakeModel) http.Handler) *fakeModel {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	m := &fakeModel{URL: "http://" + ln.Addr().String()}
	srv := &http.Server{Handler: h(m), ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return m
}

// reply is one scripted model answer: text chunks (each after Delay) and
// an optional tool call.
type reply struct {
	Chunks []string
	Delay  time.Duration
	Tool   string // the generic tool: shell, ask, todo, write (Claude Code, Codex)
	Arg    string
	// OutTokens is the output usage the Anthropic API reports (7 if 0):
	// "spend: TEXT" reports 20,000, a turn that costs cents at any
	// Claude price, for the budget tests.
	OutTokens int
}

func (rp reply) outTokens() int { return cmp.Or(rp.OutTokens, 7) }

// script picks the reply; users are the user texts of the request in
// order (the last is text), result the output of the tool call the
// request answers ("" if none).
func script(text string, users []string, hasResult bool, result string) reply {
	t := strings.TrimSpace(text)
	// A mission's task turn is compiled from sections (core.CompileText)
	// whose last line is "Task: TEXT": the script acts on TEXT.
	if i := strings.LastIndex(t, "\nTask: "); i >= 0 {
		t = strings.TrimSpace(t[i+len("\nTask: "):])
	}
	switch {
	case hasResult:
		return reply{Chunks: []string{"tool said: ", strings.TrimSpace(result)}}
	case strings.HasPrefix(t, "run: "):
		return reply{Chunks: []string{"running it"}, Tool: "shell", Arg: strings.TrimPrefix(t, "run: ")}
	case strings.HasPrefix(t, "write: "):
		return reply{Chunks: []string{"writing it"}, Tool: "write", Arg: strings.TrimPrefix(t, "write: ")}
	case strings.HasPrefix(t, "ask: "):
		return reply{Tool: "ask", Arg: strings.TrimPrefix(t, "ask: ")}
	case strings.HasPrefix(t, "spend: "):
		return reply{Chunks: []string{"spent: ", strings.TrimPrefix(t, "spend: ")}, OutTokens: 20000}
	case t == "todo":
		return reply{Tool: "todo"}
	case t == "recall" && len(users) > 0:
		return reply{Chunks: []string{"first: ", users[0]}}
	case t == "history":
		return reply{Chunks: []string{"history: ", strings.Join(users[:max(len(users)-1, 0)], " | ")}}
	case strings.Contains(t, "slow"):
		var cs []string
		for i := 0; i < 40; i++ {
			cs = append(cs, fmt.Sprintf("w%d ", i))
		}
		return reply{Chunks: cs, Delay: 150 * time.Millisecond}
	}
	return reply{Chunks: []string{"echo: ", t}}
}

// sse writes Server-Sent Events.
type sse struct {
	w  http.ResponseWriter
	fl http.Flusher
}

func newSSE(w http.ResponseWriter) *sse {
	w.Header().Set("Content-Type", "text/event-stream")
	fl, _ := w.(http.Flusher)
	return &sse{w: w, fl: fl}
}

func (s *sse) send(event string, data any) {
	b, _ := json.Marshal(data)
	if event != "" {
		fmt.Fprintf(s.w, "event: %s\n", event)
	}
	fmt.Fprintf(s.w, "data: %s\n\n", b)
	if s.fl != nil {
		s.fl.Flush()
	}
}

// anthropicAPI is the Anthropic Messages API (Claude Code).
func anthropicAPI(m *fakeModel) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		switch {
		case strings.HasSuffix(r.URL.Path, "/count_tokens"):
			io.WriteString(w, `{"input_tokens": 10}`)
			return
		case !strings.HasPrefix(r.URL.Path, "/v1/messages"):
			http.NotFound(w, r)
			return
		}
		var req struct {
			Model    string `json:"model"`
			Stream   bool   `json:"stream"`
			Messages []struct {
				Role    string          `json:"role"`
				Content json.RawMessage `json:"content"`
			} `json:"messages"`
		}
		if err := json.Unmarshal(body, &req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		text, result, hasResult := "", "", false
		var users []string
		for i, msg := range req.Messages {
			if msg.Role != "user" {
				continue
			}
			for _, b := range anthropicBlocks(msg.Content) {
				if b.Type == "text" && !strings.HasPrefix(strings.TrimSpace(b.Text), "<") {
					text = b.Text
					users = append(users, b.Text)
				}
				if i == len(req.Messages)-1 && b.Type == "tool_result" {
					hasResult, result = true, anthropicResult(b.Content)
				}
			}
		}
		m.saw(text)
		rp := script(text, users, hasResult, result)
		if !req.Stream {
			anthropicJSON(w, req.Model, rp)
			return
		}
		anthropicStream(newSSE(w), req.Model, rp)
	})
}

type anthropicBlock struct {
	Type    string          `json:"type"`
	Text    string          `json:"text"`
	Content json.RawMessage `json:"content"`
}

func anthropicBlocks(raw json.RawMessage) []anthropicBlock {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []anthropicBlock{{Type: "text", Text: s}}
	}
	var bs []anthropicBlock
	_ = json.Unmarshal(raw, &bs)
	return bs
}

func anthropicResult(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var out []string
	for _, b := range anthropicBlocks(raw) {
		out = append(out, b.Text)
	}
	return strings.Join(out, "")
}

// anthropicTool is the Claude Code tool call of a generic script tool.
func anthropicTool(rp reply) (string, any) {
	switch rp.Tool {
	case "shell":
		return "Bash", map[string]any{"command": rp.Arg, "description": "run a command"}
	case "ask":
		return "AskUserQuestion", map[string]any{"questions": []any{map[string]any{"question": rp.Arg, "header": "Color",
			"multiSelect": false, "options": []any{map[string]any{"label": "red", "description": "warm"},
				map[string]any{"label": "blue", "description": "cool"}}}}}
	case "write":
		return "Write", map[string]any{"file_path": rp.Arg, "content": "written by Claude\n"}
	case "todo":
		return "TodoWrite", map[string]any{"todos": []any{
			map[string]any{"content": "first", "status": "completed", "activeForm": "doing first"},
			map[string]any{"content": "second", "status": "in_progress", "activeForm": "doing second"}}}
	}
	return "", nil
}

func anthropicJSON(w http.ResponseWriter, model string, rp reply) {
	content := []any{}
	if len(rp.Chunks) > 0 {
		content = append(content, map[string]any{"type": "text", "text": strings.Join(rp.Chunks, "")})
	}
	stop := "end_turn"
	if name, in := anthropicTool(rp); name != "" {
		content = append(content, map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_%d", time.Now().UnixNano()),
			"name": name, "input": in})
		stop = "tool_use"
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"id": fmt.Sprintf("msg_%d", time.Now().UnixNano()), "type": "message",
		"role": "assistant", "model": model, "content": content, "stop_reason": stop,
		"usage": map[string]any{"input_tokens": 12, "output_tokens": rp.outTokens()}})
}

func anthropicStream(s *sse, model string, rp reply) {
	s.send("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": fmt.Sprintf("msg_%d", time.Now().UnixNano()), "type": "message", "role": "assistant", "model": model,
		"content": []any{}, "stop_reason": nil, "usage": map[string]any{"input_tokens": 12, "output_tokens": 1}}})
	idx := 0
	if len(rp.Chunks) > 0 {
		s.send("content_block_start", map[string]any{"type": "content_block_start", "index": idx,
			"content_block": map[string]any{"type": "text", "text": ""}})
		for _, c := range rp.Chunks {
			time.Sleep(rp.Delay)
			s.send("content_block_delta", map[string]any{"type": "content_block_delta", "index": idx,
				"delta": map[string]any{"type": "text_delta", "text": c}})
		}
		s.send("content_block_stop", map[string]any{"type": "content_block_stop", "index": idx})
		idx++
	}
	stop := "end_turn"
	if name, in := anthropicTool(rp); name != "" {
		stop = "tool_use"
		b, _ := json.Marshal(in)
		s.send("content_block_start", map[string]any{"type": "content_block_start", "index": idx, "content_block": map[string]any{
			"type": "tool_use", "id": fmt.Sprintf("toolu_%d", time.Now().UnixNano()), "name": name, "input": map[string]any{}}})
		s.send("content_block_delta", map[string]any{"type": "content_block_delta", "index": idx,
			"delta": map[string]any{"type": "input_json_delta", "partial_json": string(b)}})
		s.send("content_block_stop", map[string]any{"type": "content_block_stop", "index": idx})
	}
	s.send("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop,
		"stop_sequence": nil}, "usage": map[string]any{"output_tokens": rp.outTokens()}})
	s.send("message_stop", map[string]any{"type": "message_stop"})
}

// responsesAPI is the OpenAI Responses API (Codex): POST /v1/responses.
func responsesAPI(m *fakeModel) http.Handler { return responses(m, true) }

// sandboxedResponsesAPI is responsesAPI for a model that never asks to
// run a command outside the sandbox, whatever its instructions say.
func sandboxedResponsesAPI(m *fakeModel) http.Handler { return responses(m, false) }

func responses(m *fakeModel, mayEscalate bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if !strings.HasSuffix(r.URL.Path, "/responses") {
			if strings.HasSuffix(r.URL.Path, "/models") {
				io.WriteString(w, `{"models":[]}`)
				return
			}
			http.NotFound(w, r)
			return
		}
		var req struct {
			Model string `json:"model"`
			Input []struct {
				Type    string          `json:"type"`
				Role    string          `json:"role"`
				Content json.RawMessage `json:"content"`
				Output  json.RawMessage `json:"output"`
			} `json:"input"`
			Tools []struct {
				Type string `json:"type"`
				Name string `json:"name"`
			} `json:"tools"`
		}
		if err := json.Unmarshal(body, &req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		text, result, hasResult := "", "", false
		var users []string
		for i, it := range req.Input {
			if it.Type == "message" && it.Role == "user" {
				var parts []struct {
					Type string `json:"type"`
					Text string `json:"text"`
				}
				_ = json.Unmarshal(it.Content, &parts)
				for _, p := range parts {
					if p.Type == "input_text" && !strings.HasPrefix(strings.TrimSpace(p.Text), "<") {
						text = p.Text
						users = append(users, p.Text)
					}
				}
			}
			if it.Type == "function_call_output" && i == len(req.Input)-1 {
				hasResult = true
				var s string
				if json.Unmarshal(it.Output, &s) != nil {
					s = string(it.Output)
				}
				result = s
			}
		}
		m.saw(text)
		tools := map[string]bool{}
		for _, tl := range req.Tools {
			tools[tl.Name] = true
		}
		// Like a model that reads its instructions, ask to leave the
		// sandbox only when they tell it how (approval_policy on-request;
		// untrusted and never do not).
		escalate := mayEscalate && strings.Contains(string(body), "# Escalation Requests")
		responsesStream(newSSE(w), script(text, users, hasResult, result), tools, escalate)
	})
}

func responsesStream(s *sse, rp reply, tools map[string]bool, escalate bool) {
	id := fmt.Sprintf("resp_%d", time.Now().UnixNano())
	s.send("response.created", map[string]any{"type": "response.created", "response": map[string]any{"id": id, "status": "in_progress"}})
	if len(rp.Chunks) > 0 {
		mid := fmt.Sprintf("msg_%d", time.Now().UnixNano())
		s.send("response.output_item.added", map[string]any{"type": "response.output_item.added", "output_index": 0,
			"item": map[string]any{"type": "message", "id": mid, "role": "assistant", "status": "in_progress", "content": []any{}}})
		for _, c := range rp.Chunks {
			time.Sleep(rp.Delay)
			s.send("response.output_text.delta", map[string]any{"type": "response.output_text.delta", "item_id": mid,
				"output_index": 0, "content_index": 0, "delta": c})
		}
		s.send("response.output_item.done", map[string]any{"type": "response.output_item.done", "output_index": 0,
			"item": map[string]any{"type": "message", "id": mid, "role": "assistant", "status": "completed",
				"content": []any{map[string]any{"type": "output_text", "text": strings.Join(rp.Chunks, ""), "annotations": []any{}}}}})
	}
	if rp.Tool != "" {
		name, args := responsesTool(rp, tools, escalate)
		b, _ := json.Marshal(args)
		s.send("response.output_item.done", map[string]any{"type": "response.output_item.done", "output_index": 1,
			"item": map[string]any{"type": "function_call", "id": fmt.Sprintf("fc_%d", time.Now().UnixNano()),
				"call_id": fmt.Sprintf("call_%d", time.Now().UnixNano()), "name": name, "arguments": string(b), "status": "completed"}})
	}
	s.send("response.completed", map[string]any{"type": "response.completed", "response": map[string]any{"id": id,
		"status": "completed", "usage": map[string]any{"input_tokens": 21, "output_tokens": 9, "total_tokens": 30,
			"input_tokens_details": map[string]any{"cached_tokens": 0}, "output_tokens_details": map[string]any{"reasoning_tokens": 0}}}})
}

// responsesTool is Codex's tool call for a generic script tool; escalate
// asks to run a command outside the sandbox (which makes Codex ask for
// approval under on-request).
func responsesTool(rp reply, tools map[string]bool, escalate bool) (string, any) {
	switch rp.Tool {
	case "shell":
		if (tools["exec_command"] || !tools["shell"]) && escalate {
			return "exec_command", map[string]any{"cmd": rp.Arg, "sandbox_permissions": "require_escalated",
				"justification": "run " + rp.Arg}
		}
		if tools["exec_command"] || !tools["shell"] {
			return "exec_command", map[string]any{"cmd": rp.Arg}
		}
		return "shell", map[string]any{"command": []string{"bash", "-lc", rp.Arg}}
	case "write":
		// Codex has no apply_patch tool for an unknown model, and takes
		// an apply_patch heredoc in a command for a patch (fileChange).
		patch := "*** Begin Patch\n*** Add File: " + rp.Arg + "\n+written by Codex\n*** End Patch\n"
		return "exec_command", map[string]any{"cmd": "apply_patch <<'EOF'\n" + patch + "EOF\n"}
	case "ask":
		return "request_user_input", map[string]any{"questions": []any{map[string]any{"id": "color", "header": "Color",
			"question": rp.Arg, "options": []any{map[string]any{"label": "red", "description": "warm"},
				map[string]any{"label": "blue", "description": "cool"}}}}}
	case "todo":
		return "update_plan", map[string]any{"plan": []any{map[string]any{"step": "first", "status": "completed"},
			map[string]any{"step": "second", "status": "in_progress"}}}
	}
	return "", nil
}

// geminiAPI is the Gemini API (gemini-cli): POST
// /v1beta/models/{model}:streamGenerateContent?alt=sse for the chat,
// :generateContent for its JSON side calls (the model router, the
// next-speaker check), which get a value of their responseJsonSchema, and
// :countTokens.
func geminiAPI(m *fakeModel) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		_, method, _ := strings.Cut(r.URL.Path, ":")
		if !strings.HasPrefix(r.URL.Path, "/v1beta/models/") || method == "" {
			http.NotFound(w, r)
			return
		}
		if method == "countTokens" {
			io.WriteString(w, `{"totalTokens": 10}`)
			return
		}
		var req struct {
			Contents []struct {
				Role  string       `json:"role"`
				Parts []geminiPart `json:"parts"`
			} `json:"contents"`
			GenerationConfig struct {
				ResponseJSONSchema map[string]any `json:"responseJsonSchema"`
			} `json:"generationConfig"`
		}
		if err := json.Unmarshal(body, &req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if s := req.GenerationConfig.ResponseJSONSchema; s != nil {
			b, _ := json.Marshal(schemaValue(s))
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(geminiChunk([]any{map[string]any{"text": string(b)}}, "STOP"))
			return
		}
		text, result, hasResult := "", "", false
		var users []string
		for i, c := range req.Contents {
			if c.Role != "user" {
				continue
			}
			for _, p := range c.Parts {
				if p.Text != "" && !strings.HasPrefix(strings.TrimSpace(p.Text), "<") {
					text = p.Text
					users = append(users, p.Text)
				}
				if i == len(req.Contents)-1 && p.FunctionResponse != nil {
					b, _ := json.Marshal(p.FunctionResponse.Response)
					hasResult, result = true, string(b)
				}
			}
		}
		m.saw(text)
		rp := script(text, users, hasResult, result)
		if method != "streamGenerateContent" {
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(geminiChunk(geminiParts(rp, strings.Join(rp.Chunks, "")), "STOP"))
			return
		}
		s := newSSE(w)
		for i, c := range rp.Chunks {
			time.Sleep(rp.Delay)
			finish := ""
			if i == len(rp.Chunks)-1 && rp.Tool == "" {
				finish = "STOP"
			}
			s.send("", geminiChunk([]any{map[string]any{"text": c}}, finish))
		}
		if rp.Tool != "" || len(rp.Chunks) == 0 {
			s.send("", geminiChunk(geminiParts(rp, ""), "STOP"))
		}
	})
}

type geminiPart struct {
	Text             string `json:"text"`
	FunctionResponse *struct {
		Response any `json:"response"`
	} `json:"functionResponse"`
}

// geminiParts is the text (if any) and the tool call of a reply.
func geminiParts(rp reply, text string) []any {
	var parts []any
	if text != "" {
		parts = append(parts, map[string]any{"text": text})
	}
	if rp.Tool == "shell" {
		parts = append(parts, map[string]any{"functionCall": map[string]any{"name": "run_shell_command",
			"args": map[string]any{"command": rp.Arg, "description": "run a command"}}})
	}
	if len(parts) == 0 {
		parts = append(parts, map[string]any{"text": "ok"})
	}
	return parts
}

// geminiChunk is one GenerateContentResponse; finish "" leaves the
// candidate open.
func geminiChunk(parts []any, finish string) map[string]any {
	c := map[string]any{"index": 0, "content": map[string]any{"role": "model", "parts": parts}}
	if finish != "" {
		c["finishReason"] = finish
	}
	return map[string]any{"candidates": []any{c}, "modelVersion": "fake",
		"usageMetadata": map[string]any{"promptTokenCount": 12, "candidatesTokenCount": 7, "totalTokenCount": 19}}
}

// schemaValue is a value of a JSON schema: the first enum value (so the
// next-speaker check answers "user" and the turn ends), false, 0, "x",
// and objects with their required properties.
func schemaValue(s map[string]any) any {
	if e, ok := s["enum"].([]any); ok && len(e) > 0 {
		return e[0]
	}
	switch strings.ToLower(fmt.Sprint(s["type"])) {
	case "object":
		out := map[string]any{}
		props, _ := s["properties"].(map[string]any)
		req, _ := s["required"].([]any)
		for _, k := range req {
			p, _ := props[fmt.Sprint(k)].(map[string]any)
			out[fmt.Sprint(k)] = schemaValue(p)
		}
		return out
	case "array":
		return []any{}
	case "boolean":
		return false
	case "integer", "number":
		return 0
	}
	return "x"
}
