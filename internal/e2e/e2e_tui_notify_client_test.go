package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNotifyClientAndCommand: with `nexus serve` as the host, a client UI
// in a background tmux window notifies as a host's own UI does, the
// host runs [notify] command with the event as JSON, and `nexus log
// --json` carries the same event's notice.
func TestNotifyClientAndCommand(t *testing.T) {
	e := newEnv(t)
	dir := t.TempDir()
	got, cfg := filepath.Join(dir, "got"), filepath.Join(dir, "config.toml")
	file := "[notify]\nevents = [\"waiting\"]\ncommand = [\"sh\", \"-c\", \"cat >> \\\"$0\\\"\", " + quoteTOML(got) + "]\n"
	if err := os.WriteFile(cfg, []byte(file), 0o600); err != nil {
		t.Fatal(err)
	}
	e.extra = append(e.extra, "NEXUS_CONFIG="+cfg)
	defer e.serve()()
	th := e.must("thread", "new", "--title", "remote work")
	e.must("thread", "new", "--title", "selected")
	tt := e.startTUIEnv(t, "NEXUS_CONFIG="+cfg)
	tt.waitFor("client of pid")
	tt.waitFor("remote work")
	w := watchUI(tt)

	r := e.run("send", th, "go #approve")
	if r.code != 3 {
		t.Fatalf("send #approve: exit %d, want 3 (waiting): %s", r.code, r.err)
	}
	req := strings.TrimSpace(r.out)
	w.waitPane("the client's bell", "window_bell_flag", "1")
	w.waitPane("the client's title", "pane_title", "nexus · 1 waiting")
	eventually(t, "the client's desktop notification", func() bool {
		return strings.Contains(w.written(), "\x1b\x1b]9;nexus · remote work: approval: ")
	})
	var ev map[string]any
	eventually(t, "the notify command to get the event", func() bool {
		b, _ := os.ReadFile(got)
		return json.Unmarshal(b, &ev) == nil
	})
	if ev["kind"] != "waiting" || ev["thread"] != th || ev["run"] != th+"/1" || ev["request"] != req || ev["title"] != "remote work" ||
		!strings.Contains(ev["prompt"].(string), "go") {
		t.Errorf("the notify command read %v, want the waiting event of %s's run 1 with request %s and its prompt", ev, th, req)
	}
	notices := 0
	for _, line := range strings.Split(e.must("log", th, "--json"), "\n") {
		var l struct {
			Notice *struct{ Kind, Request string }
		}
		if err := json.Unmarshal([]byte(line), &l); err != nil {
			t.Fatalf("log --json line %q: %v", line, err)
		}
		if l.Notice != nil {
			notices++
			if l.Notice.Kind != "waiting" || l.Notice.Request != req {
				t.Errorf("log --json notice %+v, want waiting on %s", *l.Notice, req)
			}
		}
	}
	if notices != 1 {
		t.Errorf("log --json carries %d notices, want the one waiting event", notices)
	}
	e.must("respond", req, "--allow")
	w.waitPane("the client's title to clear", "pane_title", "nexus")
	w.quit()
}

// quoteTOML quotes s as a TOML basic string.
func quoteTOML(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
