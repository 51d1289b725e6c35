package workers

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/creack/pty"
)

// drainGrace is how long run_command waits, after the shell exits, for
// the rest of its output before it ends the process group.
const drainGrace = 100 * time.Millisecond

// runCommand runs `/bin/sh -c COMMAND` on a new PTY, in a new session
// (so its own process group, whose id is the shell's pid), streams the
// output as checkpoints, and ends the whole group when the shell exits,
// the step is cancelled or it times out. A non-zero exit is status error
// with ExitCode set.
func (s *server) runCommand(ctx context.Context, a Args, r *Result, emit emitFunc) error {
	if strings.TrimSpace(a.Command) == "" {
		return errors.New("run_command needs a command")
	}
	dir := s.ws.root
	if a.Cwd != "" {
		rel, err := s.ws.resolve(a.Cwd)
		if err != nil {
			return err
		}
		st, err := s.ws.fsys.Stat(rel)
		if err != nil {
			return fileErr(rel, err)
		}
		if !st.IsDir() {
			return fmt.Errorf("cwd %s is not a directory", display(rel))
		}
		dir = filepath.Join(s.ws.root, rel)
	}
	ptmx, tty, err := pty.Open()
	if err != nil {
		return fmt.Errorf("open a pty: %w", err)
	}
	defer ptmx.Close()
	if err := quietTTY(tty); err != nil {
		tty.Close()
		return fmt.Errorf("set up the pty: %w", err)
	}
	pty.Setsize(ptmx, &pty.Winsize{Rows: 50, Cols: 160})
	cmd := exec.Command("/bin/sh", "-c", a.Command)
	cmd.Dir, cmd.Env = dir, commandEnv(s.cfg.Env, s.allow, dir)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	// As pty.Start does: a new session makes the shell leader of a new
	// process group, with the pty as its controlling terminal (fd 0).
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	err = cmd.Start()
	tty.Close()
	if err != nil {
		return fmt.Errorf("start /bin/sh: %w", err)
	}
	pgid := cmd.Process.Pid
	emit(Artifacts{PGID: pgid})
	// End of input right away: a command that reads stdin gets EOF
	// instead of waiting for a person who is not there.
	ptmx.Write([]byte{4})

	c := &capture{max: s.cfg.MaxOutput, emit: emit}
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		c.pump(ptmx)
	}()
	waitDone := make(chan error, 1)
	go func() { waitDone <- cmd.Wait() }()

	var waitErr error
	select {
	case waitErr = <-waitDone:
	case <-ctx.Done():
		waitErr = stopGroup(pgid, waitDone, s.cfg.KillGrace)
	}
	// The shell is gone. Whatever else of its group still runs or holds
	// the terminal is ended too: a step never leaves processes behind.
	select {
	case <-readDone:
	case <-time.After(drainGrace):
	}
	syscall.Kill(-pgid, syscall.SIGKILL)
	select {
	case <-readDone:
	case <-time.After(time.Second):
		ptmx.Close() // a process that left the group still holds the tty
		<-readDone
	}
	c.flush()

	code := 0
	var ee *exec.ExitError
	switch {
	case errors.As(waitErr, &ee):
		ws, _ := ee.Sys().(syscall.WaitStatus)
		code = ws.ExitStatus()
		if ws.Signaled() {
			code = 128 + int(ws.Signal())
		}
	case waitErr != nil:
		return fmt.Errorf("wait for /bin/sh: %w", waitErr)
	}
	r.ExitCode = &code
	r.Output, r.Truncated = c.result()
	r.Metrics.Bytes = c.total
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	if code != 0 {
		return fmt.Errorf("command exited with status %d", code)
	}
	return nil
}

// stopGroup sends SIGTERM to the process group, then SIGKILL after the
// grace period, and returns the shell's wait error.
func stopGroup(pgid int, waitDone <-chan error, grace time.Duration) error {
	syscall.Kill(-pgid, syscall.SIGTERM)
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case err := <-waitDone:
		return err
	case <-t.C:
		syscall.Kill(-pgid, syscall.SIGKILL)
		return <-waitDone
	}
}

// capture keeps a command's output within max bytes (the first half and
// the last half when it is longer) and streams it as checkpoints, up to
// max bytes, never splitting a UTF-8 sequence between chunks.
type capture struct {
	max      int
	emit     emitFunc
	head     []byte
	tail     []byte
	dropped  int64
	total    int64
	streamed int
	pending  []byte // an incomplete UTF-8 sequence held for the next chunk
}

func (c *capture) pump(r io.Reader) {
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			c.add(buf[:n])
		}
		if err != nil {
			return // EIO once every holder of the tty is gone
		}
	}
}

func (c *capture) add(b []byte) {
	c.total += int64(len(b))
	keep := b
	if room := c.max/2 - len(c.head); room > 0 {
		n := min(room, len(keep))
		c.head = append(c.head, keep[:n]...)
		keep = keep[n:]
	}
	c.tail = append(c.tail, keep...)
	if len(c.tail) > c.max {
		cut := len(c.tail) - c.max/2
		c.dropped += int64(cut)
		c.tail = append(c.tail[:0], c.tail[cut:]...)
	}
	c.stream(b)
}

func (c *capture) stream(b []byte) {
	if c.streamed >= c.max {
		return
	}
	data := append(c.pending, b...)
	cut := utf8Cut(data)
	c.pending = append([]byte(nil), data[cut:]...)
	if cut == 0 {
		return
	}
	c.streamed += cut
	c.emit(Artifacts{Chunk: strings.ToValidUTF8(string(data[:cut]), "\uFFFD")})
	if c.streamed >= c.max {
		c.emit(Artifacts{Note: fmt.Sprintf("output passed %d bytes: later output is not streamed; the result keeps its head and tail", c.max)})
	}
}

func (c *capture) flush() {
	if len(c.pending) > 0 && c.streamed < c.max {
		c.emit(Artifacts{Chunk: strings.ToValidUTF8(string(c.pending), "\uFFFD")})
	}
	c.pending = nil
}

func (c *capture) result() (string, bool) {
	if c.dropped == 0 && len(c.head)+len(c.tail) <= c.max {
		return strings.ToValidUTF8(string(c.head)+string(c.tail), "\uFFFD"), false
	}
	tail := c.tail
	if extra := len(tail) - c.max/2; extra > 0 {
		c.dropped += int64(extra)
		tail = tail[extra:]
	}
	s := string(c.head) + fmt.Sprintf("\n[... %d bytes of output omitted: over the %d byte limit ...]\n", c.dropped, c.max) + string(tail)
	return strings.ToValidUTF8(s, "\uFFFD"), true
}

// utf8Cut returns the length of the longest prefix of b that does not end
// inside a UTF-8 sequence.
func utf8Cut(b []byte) int {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				return i
			}
			return len(b)
		}
	}
	return len(b)
}
