package host

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/internal/config"
)

// TestNotifyCommand: [notify] command gets one JSON object per event
// (a request opening, a run failing, a run finishing) with the thread,
// run, kind and prompt; a command that fails and one that hangs stop
// neither the host nor the next commands.
func TestNotifyCommand(t *testing.T) {
	out := filepath.Join(t.TempDir(), "events")
	// The waiting event's command fails; run 1's finished event's command
	// hangs until the host stops; the others append and succeed.
	script := `line=$(cat); printf '%s\n' "$line" >> "$1"
case $line in
*'"kind":"waiting"'*) echo "cannot reach ntfy.sh" >&2; exit 3;;
*'"run":"tn/1"'*) exec sleep 600;;
esac`
	file := "[notify]\ncommand = [\"sh\", \"-c\", " + quoteTOML(script) + ", \"sh\", " + quoteTOML(out) + "]\n"
	cfg, err := config.Parse("/c.toml", []byte(file), nil)
	if err != nil {
		t.Fatal(err)
	}
	h, err := Start(filepath.Join(t.TempDir(), "state"), time.Second, cfg, true)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	var mu sync.Mutex
	var logged []string
	h.SetNotifyLog(func(line string) {
		mu.Lock()
		defer mu.Unlock()
		logged = append(logged, line)
	})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	b := h.Backend()
	submit := func(c core.Command) *core.Receipt {
		t.Helper()
		rec, err := b.Submit(ctx, c)
		if err != nil || rec.Reject != nil {
			t.Fatalf("%s: %v %+v", c.Kind, err, rec.Reject)
		}
		return rec
	}
	submit(core.Command{ID: "c1", Kind: core.CmdThreadCreate, NewThread: "tn", Title: "demo", Provider: "builtin", Workspace: t.TempDir()})
	rec := submit(core.Command{ID: "c2", Kind: core.CmdMessageSend, Thread: "tn", Text: "#approve say hello there"})
	req := waitFor(t, b, func(st *core.State) string {
		for _, q := range st.RequestsOf(rec.Run) {
			if q.Status == core.RequestPending {
				return q.ID
			}
		}
		return ""
	})
	submit(core.Command{ID: "c3", Kind: core.CmdRequestRespond, Request: req, Response: core.RespAllow})
	waitTerminal(t, b, rec.Run)
	rec = submit(core.Command{ID: "c4", Kind: core.CmdMessageSend, Thread: "tn", Text: "#fail hello"})
	waitTerminal(t, b, rec.Run)
	rec = submit(core.Command{ID: "c5", Kind: core.CmdMessageSend, Thread: "tn", Text: "hello again"})
	waitTerminal(t, b, rec.Run)

	var events []NotifyEvent
	waitFor(t, b, func(*core.State) string {
		data, _ := os.ReadFile(out)
		lines := strings.Split(strings.TrimSpace(string(data)), "\n")
		if len(lines) < 4 {
			return ""
		}
		events = events[:0]
		for _, l := range lines {
			var ev NotifyEvent
			if err := json.Unmarshal([]byte(l), &ev); err != nil {
				t.Fatalf("the command read %q, not one JSON object: %v", l, err)
			}
			events = append(events, ev)
		}
		return "done"
	})
	slices.SortFunc(events, func(a, b NotifyEvent) int { return strings.Compare(a.Run+a.Kind, b.Run+b.Kind) })
	want := []struct{ run, kind string }{{"tn/1", "finished"}, {"tn/1", "waiting"}, {"tn/2", "failed"}, {"tn/3", "finished"}}
	if len(events) != len(want) {
		t.Fatalf("the command ran for %d events, want one per event: %+v", len(events), events)
	}
	for i, w := range want {
		ev := events[i]
		if ev.Run != w.run || ev.Kind != w.kind || ev.Thread != "tn" || ev.Title != "demo" || ev.Text == "" {
			t.Errorf("event %d = %+v, want %s of %s in thread tn (demo)", i, ev, w.kind, w.run)
		}
	}
	if ev := events[1]; ev.Request != req || !strings.Contains(ev.Prompt, "say hello there") {
		t.Errorf("the waiting event = %+v, want request %s and its prompt", ev, req)
	}
	if ev := events[2]; !strings.Contains(ev.Text, "#fail") {
		t.Errorf("the failed event's text %q does not say why", ev.Text)
	}
	waitFor(t, b, func(*core.State) string {
		mu.Lock()
		defer mu.Unlock()
		for _, l := range logged {
			if strings.Contains(l, "exit status 3") && strings.Contains(l, "cannot reach ntfy.sh") {
				return l
			}
		}
		return ""
	})
}

// waitTerminal waits until run has ended.
func waitTerminal(t *testing.T, b core.Backend, run string) {
	t.Helper()
	waitFor(t, b, func(st *core.State) string {
		if r := st.Runs[run]; r != nil && core.Terminal(r.Status) {
			return string(r.Status)
		}
		return ""
	})
}

// waitFor polls the host's state until ok returns a non-empty answer,
// for two minutes at most (a failsafe: it returns as soon as it holds).
func waitFor(t *testing.T, b core.Backend, ok func(st *core.State) string) string {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		st, err := b.State(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if s := ok(st); s != "" {
			return s
		}
	}
	t.Fatal("the condition did not hold within two minutes")
	return ""
}

// quoteTOML quotes s as a TOML basic string.
func quoteTOML(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
