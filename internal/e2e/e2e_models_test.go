package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

const fakeKey = "sk-nexus-e2e-KEY-7f3a9"

// fakeModels is a model server on 127.0.0.1 speaking OpenAI chat
// completions and the Anthropic messages API, scripted by the last user
// text: "storm" answers 429 for ever; otherwise the first call asks to
// write out.txt and the call after the tool result answers in text.
func fakeModels(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		text := string(body)
		okKey := r.Header.Get("Authorization") == "Bearer "+fakeKey || r.Header.Get("X-Api-Key") == fakeKey
		if !okKey {
			http.Error(w, "bad key", 401)
			return
		}
		if strings.Contains(text, "storm") {
			http.Error(w, "slow down", 429)
			return
		}
		answered := strings.Contains(text, `"role":"tool"`) || strings.Contains(text, `"tool_result"`)
		w.Header().Set("Content-Type", "text/event-stream")
		if r.URL.Path == "/v1/chat/completions" {
			if !answered {
				args, _ := json.Marshal(`{"path":"out.txt","content":"from model\n"}`)
				fmt.Fprintf(w, "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"c1\",\"function\":{\"name\":\"write_file\",\"arguments\":%s}}]}}]}\n\n", args)
			} else {
				fmt.Fprint(w, "data: {\"choices\":[{\"delta\":{\"content\":\"Wrote out.txt.\"}}]}\n\n")
			}
			fmt.Fprint(w, "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":120,\"completion_tokens\":30}}\n\ndata: [DONE]\n\n")
			return
		}
		ev := func(name, data string) { fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, data) }
		ev("message_start", `{"type":"message_start","message":{"usage":{"input_tokens":120}}}`)
		if !answered {
			ev("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"tu1","name":"write_file"}}`)
			ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"path\":\"out.txt\",\"content\":\"from model\\n\"}"}}`)
		} else {
			ev("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`)
			ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Wrote out.txt."}}`)
		}
		ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":30}}`)
		ev("message_stop", `{"type":"message_stop"}`)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestE2ERealModelAPIs runs the agent on the OpenAI and Anthropic profiles
// against the fake server: the tool-using plan completes with usage and
// cost recorded; a 429 storm fails the run with a clear error; and the key
// appears nowhere in the state dir.
func TestE2ERealModelAPIs(t *testing.T) {
	t.Parallel()
	srv := fakeModels(t)
	for _, prof := range []string{"builtin:openai", "builtin:anthropic"} {
		e := newEnv(t)
		env := []string{"OPENAI_API_KEY=" + fakeKey, "OPENAI_BASE_URL=" + srv.URL + "/v1", "NEXUS_OPENAI_MODEL=gpt-4o-mini",
			"ANTHROPIC_API_KEY=" + fakeKey, "ANTHROPIC_BASE_URL=" + srv.URL, "NEXUS_ANTHROPIC_MODEL=claude-sonnet-4-5"}
		run := func(args ...string) result {
			c := e.cmd(args...)
			c.Env = append(c.Env, env...)
			var so, se strings.Builder
			c.Stdout, c.Stderr = &so, &se
			c.Run()
			return result{out: so.String(), err: se.String(), code: c.ProcessState.ExitCode()}
		}
		r := run("run", "put something in out.txt", "--provider", prof, "--yes")
		if r.code != 0 {
			t.Fatalf("%s: exit %d\n%s\n%s", prof, r.code, r.out, r.err)
		}
		if body, _ := e.readWS("out.txt"); body != "from model\n" {
			t.Fatalf("%s: out.txt = %q", prof, body)
		}
		if !strings.Contains(r.out, "120 in, 30 out") || strings.Contains(r.out, "$0.00,") {
			t.Fatalf("%s: usage and cost not reported: %s", prof, r.out)
		}
		r = run("run", "put something in out.txt", "--provider", prof, "--yes", "--budget-usd", "0.00005")
		if r.code != 1 || !strings.Contains(r.err, "budget reached") {
			t.Fatalf("%s: tiny budget: exit %d, stderr %q", prof, r.code, r.err)
		}
		r = run("run", "storm please", "--provider", prof, "--yes")
		if r.code != 1 || !strings.Contains(r.err, "429") || !strings.Contains(r.err, "gave up") {
			t.Fatalf("%s: 429 storm: exit %d, stderr %q", prof, r.code, r.err)
		}
		filepath.Walk(e.dir, func(p string, info os.FileInfo, err error) error {
			if err == nil && info.Mode().IsRegular() {
				b, _ := os.ReadFile(p)
				if strings.Contains(string(b), fakeKey) {
					t.Errorf("%s: the API key is stored in %s", prof, p)
				}
			}
			return nil
		})
	}
}

// TestE2EInterruptKillsCommandGroup interrupts a run_command step: the
// command's whole process group is gone afterwards.
func TestE2EInterruptKillsCommandGroup(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	th := e.must("thread", "new", "--yes")
	send := e.bg("send", th, "run `sleep 5151 & sleep 5152; wait`")
	eventually(t, "the command running", func() bool { return len(sleepers("515")) == 2 })
	e.must("interrupt", th)
	if r := send.wait(t); r.code != 1 {
		t.Fatalf("interrupted send exit %d: %s", r.code, r.err)
	}
	eventually(t, "no process of the command left", func() bool { return len(sleepers("515")) == 0 })
	if st := e.show(th).Runs[0].Status; st != "interrupted" {
		t.Fatalf("run %s, want interrupted", st)
	}
}

// sleepers lists live `sleep N` processes whose N starts with prefix
// (matching argv exactly, not nexus processes whose message mentions it).
func sleepers(prefix string) []int {
	var out []int
	for _, pid := range procsWith("sleep") {
		b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		argv := strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
		if len(argv) == 2 && filepath.Base(argv[0]) == "sleep" && strings.HasPrefix(argv[1], prefix) {
			out = append(out, pid)
		}
	}
	return out
}

// procsWith lists pids whose command line contains s.
func procsWith(s string) []int {
	var out []int
	ents, _ := os.ReadDir("/proc")
	for _, en := range ents {
		var pid int
		if _, err := fmt.Sscan(en.Name(), &pid); err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", en.Name(), "cmdline"))
		if err != nil {
			continue
		}
		if strings.Contains(strings.ReplaceAll(string(b), "\x00", " "), s) {
			if syscall.Kill(pid, 0) == nil {
				out = append(out, pid)
			}
		}
	}
	return out
}
