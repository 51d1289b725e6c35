package ptyterm

import (
	"context"
	"errors"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nexus-tui/nexus/core"
)

// A command started in a PTY runs at 120x40 in a session of its own; Pump
// hands its reads to the caller as they come, and Text makes them plain.
// After Exit nothing attaches, but Snapshot still has its last screen.
func TestStartPumpExitSnapshot(t *testing.T) {
	cmd := exec.Command("/bin/sh", "-c", `stty size; read -r _ _ _ _ pg sid _ < /proc/$$/stat; echo "$sid $pg"; printf 'a\r\n\033[31mred\033[0m\n'`)
	cmd.Env = append(cmd.Environ(), "TERM=xterm-256color")
	tm, err := Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	f, err := tm.Attach(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var text Text
	var plain strings.Builder
	pumped := make(chan struct{})
	go func() {
		tm.Pump(func(raw []byte) { plain.WriteString(text.Next(raw)) })
		close(pumped)
	}()
	select {
	case <-pumped:
	case <-time.After(10 * time.Second):
		t.Fatal("Pump did not end when the command exited")
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	tm.Exit()
	tm.Close()
	pid := itoa(cmd.Process.Pid)
	if want := "40 120\n" + pid + " " + pid + "\na\nred\n"; plain.String() != want {
		t.Fatalf("plain text %q, want %q (the size, the session and group of the command's own pid)", plain.String(), want)
	}
	var raw string
	for c := range f.Chunks {
		raw += string(c.Data)
	}
	if !errors.Is(f.Err(), core.ErrTerminalExited) || !strings.Contains(raw, "a\r\r\n\x1b[31mred\x1b[0m\r\n") {
		t.Fatalf("the feed ended with %v after %q", f.Err(), raw)
	}
	if _, err := tm.Attach(context.Background()); !errors.Is(err, core.ErrNoTerminal) {
		t.Fatalf("Attach after Exit: %v, want ErrNoTerminal", err)
	}
	if s := tm.Snapshot(); !s.Reset || s.Cols != Cols || s.Rows != Rows || string(s.Data) != raw {
		t.Fatalf("Snapshot after Exit: %dx%d reset=%v %q, want the whole output", s.Cols, s.Rows, s.Reset, s.Data)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// The ring keeps exactly the last RingSize bytes across wraps and
// writes larger than itself.
func TestRingKeepsTheLastBytes(t *testing.T) {
	var r ring
	var all []byte
	for i, n := range []int{10, RingSize - 20, 15, 3 * RingSize / 2, 7, RingSize, 1} {
		p := make([]byte, n)
		for j := range p {
			p[j] = byte(i*31 + j)
		}
		r.write(p)
		all = append(all, p...)
		if r.total != int64(len(all)) {
			t.Fatalf("step %d: total %d, want %d", i, r.total, len(all))
		}
		want := all[r.start():]
		if got := r.since(r.start()); string(got) != string(want) {
			t.Fatalf("step %d: the ring holds %d bytes that differ from the last %d written", i, len(got), len(want))
		}
		if got := r.since(r.total - 5); string(got) != string(all[len(all)-5:]) {
			t.Fatalf("step %d: the last 5 bytes differ", i)
		}
	}
}
