package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNotifyTest: `nexus notify test` rings the bell, sends a desktop
// notification, sets the title and runs [notify] command with one JSON
// event; a failing command is a one-line error.
func TestNotifyTest(t *testing.T) {
	dir := t.TempDir()
	got := filepath.Join(dir, "got")
	cfg := filepath.Join(dir, "config.toml")
	write := func(file string) {
		if err := os.WriteFile(cfg, []byte(file), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("NEXUS_CONFIG", cfg)
	t.Setenv("TMUX", "")
	t.Setenv("KITTY_WINDOW_ID", "")
	write("[notify]\ncommand = [\"sh\", \"-c\", \"cat > \\\"$0\\\"\", " + quoteJSON(got) + "]\n")
	var out, errOut bytes.Buffer
	if code := Run(context.Background(), []string{"notify", "test"}, strings.NewReader(""), &out, &errOut); code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	for _, want := range []string{"\a", "\x1b]9;nexus · notify test: ", "\x1b]777;notify;nexus · notify test;", "\x1b]2;nexus · notify test\a", "command: sh ran"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("notify test wrote %q, want %q in it", out.String(), want)
		}
	}
	data, err := os.ReadFile(got)
	if err != nil {
		t.Fatal(err)
	}
	var ev map[string]any
	if err := json.Unmarshal(data, &ev); err != nil || ev["kind"] != "waiting" || ev["thread"] == "" || ev["prompt"] == "" {
		t.Errorf("the command read %q (%v), want one waiting event with a thread and a prompt", data, err)
	}

	write("[notify]\nbell = false\ndesktop = false\ntitle = false\ncommand = [\"sh\", \"-c\", \"echo no route to ntfy.sh >&2; exit 7\"]\n")
	out.Reset()
	errOut.Reset()
	code := Run(context.Background(), []string{"notify", "test"}, strings.NewReader(""), &out, &errOut)
	if code != ExitFailed || strings.Count(errOut.String(), "\n") != 1 || !strings.Contains(errOut.String(), "exit status 7: no route to ntfy.sh") {
		t.Errorf("failing command: exit %d, stderr %q; want 1 and one line with its status and stderr", code, errOut.String())
	}
	if strings.ContainsAny(out.String(), "\a\x1b") {
		t.Errorf("bell, desktop and title off, yet it wrote %q", out.String())
	}
}

func quoteJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
