package llm

import (
	"context"
	"strings"
	"testing"
	"time"
)

func TestSplitClauses(t *testing.T) {
	cases := map[string][]string{
		"read README.md and summarize it":               {"read README.md", "summarize it"},
		"read a then write b to c":                      {"read a", "write b to c"},
		"write \"x and y\" to f.txt and list the files": {"write \"x and y\" to f.txt", "list the files"},
		"run `echo a && echo b and c`; search for TODO": {"run `echo a && echo b and c`", "search for TODO"},
		"read a, and then run `make`":                   {"read a", "run `make`"},
	}
	for in, want := range cases {
		got := splitClauses(in)
		if strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("%q: got %q want %q", in, got, want)
		}
	}
}

// drive runs the sim model to the end, answering each tool call with the
// given results, and returns the calls and the final text.
func drive(t *testing.T, instr string, answer func(ToolCall) string) ([]ToolCall, Response) {
	t.Helper()
	msgs := []Message{{Role: "user", Text: instr}}
	var calls []ToolCall
	for i := 0; i < 20; i++ {
		resp, err := Sim{}.Complete(context.Background(), Request{Messages: msgs}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(resp.ToolCalls) == 0 {
			return calls, resp
		}
		c := resp.ToolCalls[0]
		calls = append(calls, c)
		msgs = append(msgs, Message{Role: "assistant", ToolCalls: resp.ToolCalls},
			Message{Role: "tool", ToolCallID: c.ID, Text: answer(c)})
	}
	t.Fatal("the sim model never finished")
	return nil, Response{}
}

func TestSimPlans(t *testing.T) {
	readme := "# Nexus\n\nA cockpit.\n\n## Install\n\ngo build\n"
	calls, final := drive(t, "read README.md and write a summary to SUMMARY.md", func(c ToolCall) string {
		if c.Name == "read_file" {
			return readme
		}
		return "wrote 60 bytes"
	})
	if len(calls) != 2 || calls[0].Name != "read_file" || calls[1].Name != "write_file" || calls[1].Args["path"] != "SUMMARY.md" {
		t.Fatalf("calls %+v", calls)
	}
	sum := calls[1].Args["content"]
	if !strings.Contains(sum, "Title: Nexus") || !strings.Contains(sum, "Size: 42 bytes") {
		t.Fatalf("summary %q lacks the title and size of the file", sum)
	}
	if final.Text == "" || final.Usage.InputTokens == 0 {
		t.Fatalf("final %+v", final)
	}
	for _, c := range []struct {
		instr string
		name  string
		args  map[string]string
	}{
		{"write hello to notes.txt", "write_file", map[string]string{"path": "notes.txt", "content": "hello\n"}},
		{"replace foo with bar in x.go", "edit_file", map[string]string{"path": "x.go", "old": "foo", "new": "bar"}},
		{"list the files", "list_dir", map[string]string{"path": "."}},
		{"search for TODO", "search", map[string]string{"pattern": "TODO"}},
		{"run `go test ./...`", "run_command", map[string]string{"command": "go test ./..."}},
	} {
		calls, _ := drive(t, c.instr, func(ToolCall) string { return "ok" })
		if len(calls) != 1 || calls[0].Name != c.name {
			t.Errorf("%q: calls %+v", c.instr, calls)
			continue
		}
		for k, v := range c.args {
			if calls[0].Args[k] != v {
				t.Errorf("%q: arg %s = %q, want %q", c.instr, k, calls[0].Args[k], v)
			}
		}
	}
	_, final = drive(t, "count to ten", func(ToolCall) string { return "" })
	if !strings.Contains(final.Text, "I can") {
		t.Fatalf("an unknown request must get an honest reply: %q", final.Text)
	}
}

func TestSimIsDeterministic(t *testing.T) {
	req := Request{Messages: []Message{{Role: "user", Text: "read a.txt then run `ls`"}}}
	a, _ := Sim{}.Complete(context.Background(), req, nil)
	b, _ := Sim{}.Complete(context.Background(), req, nil)
	if a.Encode() != b.Encode() {
		t.Fatalf("same request, different responses:\n%s\n%s", a.Encode(), b.Encode())
	}
}

// TestSimLargeMessage: a message at the size limit is planned at once,
// not in time quadratic in its length.
func TestSimLargeMessage(t *testing.T) {
	big := strings.Repeat("word and ", 256<<10/9)
	start := time.Now()
	if _, err := (Sim{}).Complete(context.Background(), Request{Messages: []Message{{Role: "user", Text: big}}}, nil); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("planning a 256 KiB message took %v", d)
	}
}
