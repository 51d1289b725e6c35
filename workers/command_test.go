package workers

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestRunCommandExitCodeAndOutput(t *testing.T) {
	ws := tempWorkspace(t)
	p := newTestPool(t, ws)
	res := mustExec(t, p, Step{N: 1, Action: ActionRunCommand, Args: Args{Command: "echo hi; exit 3"}}, nil)
	if res.ExitCode == nil || *res.ExitCode != 3 {
		t.Fatalf("exit_code = %v, want 3 (%+v)", res.ExitCode, res)
	}
	if res.Status != StatusError || res.Output != "hi\n" || !strings.Contains(res.Error, "status 3") {
		t.Fatalf("result = %+v, want status error with output \"hi\\n\"", res)
	}
	res = mustExec(t, p, Step{N: 2, Action: ActionRunCommand, Args: Args{Command: "pwd; test -t 0 && echo tty", Cwd: "."}}, nil)
	if res.Status != StatusOK || res.Output != ws+"\ntty\n" || *res.ExitCode != 0 {
		t.Fatalf("pwd on a pty = %+v, want the workspace and tty", res)
	}
	// stdin is at EOF: a command that reads it does not hang.
	start := time.Now()
	res = mustExec(t, p, Step{N: 3, Action: ActionRunCommand, Args: Args{Command: "cat; echo done"}, Timeout: 5 * time.Second}, nil)
	if res.Status != StatusOK || res.Output != "done\n" || time.Since(start) > 3*time.Second {
		t.Fatalf("cat on stdin = %+v after %s", res, time.Since(start))
	}
}

func TestRunCommandStreamsOutput(t *testing.T) {
	ws := tempWorkspace(t)
	p := newTestPool(t, ws)
	var mu sync.Mutex
	var chunks []string
	var at []time.Time
	pgid := 0
	res := mustExec(t, p, Step{N: 1, Action: ActionRunCommand,
		Args: Args{Command: "for i in 1 2 3 4; do echo line$i; sleep 0.15; done"}},
		func(c Checkpoint) {
			mu.Lock()
			defer mu.Unlock()
			if c.Artifacts.PGID > 0 {
				pgid = c.Artifacts.PGID
			}
			if c.Artifacts.Chunk != "" {
				chunks = append(chunks, c.Artifacts.Chunk)
				at = append(at, time.Now())
			}
		})
	end := time.Now()
	mu.Lock()
	defer mu.Unlock()
	if res.Status != StatusOK || res.Output != "line1\nline2\nline3\nline4\n" {
		t.Fatalf("result = %+v", res)
	}
	if len(chunks) < 3 || strings.Join(chunks, "") != res.Output {
		t.Fatalf("chunks = %q, want at least 3 that join to the output", chunks)
	}
	if end.Sub(at[0]) < 300*time.Millisecond {
		t.Fatalf("first chunk came %s before the result: not streamed", end.Sub(at[0]))
	}
	if pgid == 0 {
		t.Fatal("no checkpoint reported the process group")
	}
}

// runAndStop starts a nested-shell command, waits until its group has
// its processes, stops it with stop, and checks that nothing of the
// group is left.
func runAndStop(t *testing.T, st Step, stop func(cancel func())) Result {
	ws := tempWorkspace(t)
	p := newTestPool(t, ws)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pgidc := make(chan int, 1)
	type out struct {
		res Result
		err error
	}
	done := make(chan out, 1)
	go func() {
		res, err := p.Execute(ctx, st, func(c Checkpoint) {
			if c.Artifacts.PGID > 0 {
				pgidc <- c.Artifacts.PGID
			}
		})
		done <- out{res, err}
	}()
	var pgid int
	select {
	case pgid = <-pgidc:
	case <-time.After(10 * time.Second):
		t.Fatal("the command never started")
	}
	deadline := time.Now().Add(5 * time.Second)
	for len(groupMembers(t, pgid)) < 4 { // sh, sh, sleep, sleep
		if time.Now().After(deadline) {
			t.Fatalf("group %d never had its 4 processes: %v", pgid, groupMembers(t, pgid))
		}
		time.Sleep(10 * time.Millisecond)
	}
	stop(cancel)
	var o out
	select {
	case o = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the step did not end")
	}
	if o.err != nil {
		t.Fatal(o.err)
	}
	waitGroupGone(t, pgid, time.Second)
	return o.res
}

const nestedSleep = "sh -c 'sleep 100 & sleep 100; wait'"

func TestCancelKillsProcessGroup(t *testing.T) {
	res := runAndStop(t, Step{Task: "c", N: 1, Action: ActionRunCommand, Args: Args{Command: nestedSleep}},
		func(cancel func()) { cancel() })
	if res.Status != StatusCancelled || !strings.Contains(res.Error, "cancel") || res.ExitCode == nil {
		t.Fatalf("result = %+v, want cancelled with an exit code", res)
	}
}

func TestTimeoutKillsProcessGroup(t *testing.T) {
	start := time.Now()
	res := runAndStop(t, Step{Task: "c", N: 1, Action: ActionRunCommand, Args: Args{Command: nestedSleep}, Timeout: 700 * time.Millisecond},
		func(func()) {})
	if res.Status != StatusTimeout || !strings.Contains(res.Error, "timed out after 700ms") {
		t.Fatalf("result = %+v, want timeout", res)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("timeout took %s", d)
	}
}

func TestCaptureKeepsHeadAndTail(t *testing.T) {
	var streamed []string
	c := &capture{max: 10, emit: func(a Artifacts) {
		if a.Chunk != "" {
			streamed = append(streamed, a.Chunk)
		}
	}}
	c.add([]byte("0123456789abcdefghijKLMNOPQRST"))
	c.flush()
	out, trunc := c.result()
	if !trunc || !strings.HasPrefix(out, "01234\n[... 20 bytes") || !strings.HasSuffix(out, "PQRST") {
		t.Fatalf("result = %q, %v", out, trunc)
	}
	if strings.Join(streamed, "") != "0123456789abcdefghijKLMNOPQRST" {
		t.Fatalf("streamed %q", streamed)
	}
	// A multi-byte rune split across reads is never split across chunks.
	streamed = nil
	c = &capture{max: 1 << 20, emit: func(a Artifacts) { streamed = append(streamed, a.Chunk) }}
	c.add([]byte("a\xe2\x82"))
	c.add([]byte("\xacb"))
	c.flush()
	if len(streamed) != 2 || streamed[0] != "a" || streamed[1] != "€b" {
		t.Fatalf("chunks = %q, want [a €b]", streamed)
	}
}
