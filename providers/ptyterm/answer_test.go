package ptyterm

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// The host answers a program's terminal queries, once, live: a program
// that asks for the cursor position (as fish does at every prompt) and
// reads the answer gets the real position, and attaching a screen later
// (a UI pane rebuilt from the ring) answers nothing again: what the
// program reads next is exactly what was typed.
func TestHostAnswersQueriesOnce(t *testing.T) {
	script := `stty raw -echo; printf '\033[3;5H\033[6n'; ans=$(dd bs=1 count=6 2>/dev/null); ` +
		`printf 'got[%s]\r\n' "$(printf %s "$ans" | tr '\033' E)"; ` +
		`line=$(dd bs=1 count=3 2>/dev/null); printf 'typed[%s]\r\n' "$(printf %s "$line" | tr '\033' E)"`
	cmd := exec.Command("/bin/sh", "-c", script)
	cmd.Env = append(cmd.Environ(), "TERM=xterm-256color")
	tm, err := Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	defer tm.Close()
	go tm.Pump(nil)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	waitOutput := func(want string) string {
		t.Helper()
		for ctx.Err() == nil {
			s := tm.Snapshot()
			if strings.Contains(string(s.Data), want) {
				return string(s.Data)
			}
			time.Sleep(10 * time.Millisecond)
		}
		t.Fatalf("the program never printed %q; output: %q", want, tm.Snapshot().Data)
		return ""
	}
	waitOutput("got[E[3;5R]")
	// Screens attach after the query: the ring they replay holds it,
	// and nothing may answer it again.
	for range 3 {
		f, err := tm.Attach(ctx)
		if err != nil {
			t.Fatal(err)
		}
		<-f.Chunks
	}
	if err := tm.Input(ctx, []byte("abc")); err != nil {
		t.Fatal(err)
	}
	waitOutput("typed[abc]")
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
}

func TestHasQuery(t *testing.T) {
	for in, want := range map[string]bool{
		"plain output\r\n":              false,
		"\x1b[31mred\x1b[0m\x1b[2J":     false,
		"\x1b[6n":                       true,
		"\x1b[?6n":                      true,
		"\x1b[c":                        true,
		"\x1b[>0c":                      true,
		"\x1b[?2004$p":                  true,
		"\x1b[>q":                       true,
		"\x1b]11;?\x07":                 true,
		"\x1b]0;title\x07":              false,
		"\x1bP$qm\x1b\\":                true,
		"text then \x1b":                true, // cut: the next read decides
		"text then \x1b[12;":            true,
		"\x1b[1;1H\x1b[K\x1b[?25h done": false,
	} {
		if got := hasQuery([]byte(in)); got != want {
			t.Errorf("hasQuery(%q) = %v, want %v", in, got, want)
		}
	}
}
