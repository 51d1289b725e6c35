package e2e

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/internal/cli"
	"golang.org/x/sys/unix"
)

// writeCounter counts completed writes per file name in a directory with
// inotify: a rename into place (atomic write) or a close after writing.
type writeCounter struct {
	fd     int
	mu     sync.Mutex
	counts map[string]int
	done   chan struct{}
}

func watchWrites(t *testing.T, dir string) *writeCounter {
	t.Helper()
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC)
	if err != nil {
		t.Fatalf("inotify: %v", err)
	}
	if _, err := unix.InotifyAddWatch(fd, dir, unix.IN_CLOSE_WRITE|unix.IN_MOVED_TO); err != nil {
		t.Fatalf("inotify watch: %v", err)
	}
	w := &writeCounter{fd: fd, counts: map[string]int{}, done: make(chan struct{})}
	go func() {
		defer close(w.done)
		buf := make([]byte, 64<<10)
		for {
			n, err := unix.Read(fd, buf)
			if err != nil || n <= 0 {
				return
			}
			for off := 0; off+unix.SizeofInotifyEvent <= n; {
				ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[off]))
				name := strings.TrimRight(string(buf[off+unix.SizeofInotifyEvent:off+unix.SizeofInotifyEvent+int(ev.Len)]), "\x00")
				w.mu.Lock()
				w.counts[name]++
				w.mu.Unlock()
				off += unix.SizeofInotifyEvent + int(ev.Len)
			}
		}
	}()
	t.Cleanup(func() { unix.Close(fd) })
	return w
}

func (w *writeCounter) count(name string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.counts[name]
}

// crashPlan has four file steps, each held for a while after its start is
// journaled, so the host can be killed during any of them.
const crashPlan = "#slow=1500ms write one to a.txt and write two to b.txt and replace one with uno in a.txt and write three to c.txt"

type runSummary struct {
	status   core.RunStatus
	reply    string
	files    map[string]string
	llmCalls int
	steps    []string
}

func summarizeRun(t *testing.T, e *env, th string) runSummary {
	t.Helper()
	v := e.show(th)
	r := v.Runs[0]
	s := runSummary{status: r.Status, reply: r.Reply, files: map[string]string{}}
	for _, n := range r.Nodes {
		switch {
		case n.Kind == "llm_call":
			s.llmCalls++
		case n.Kind == "worker_step" && n.Status == "completed":
			s.steps = append(s.steps, n.Title+" "+n.Blake3)
		}
	}
	for _, f := range []string{"a.txt", "b.txt", "c.txt"} {
		s.files[f], _ = e.readWS(f)
	}
	return s
}

// TestE2ECrashDuringEachStep kills the host with SIGKILL during step k of
// a four-step plan, for every k, and resumes: the workspace and the run
// equal an uninterrupted run's, each file was written once per write step,
// and the journal holds one model response per planning call. The kill
// comes from a failpoint, so it lands where it must whatever the
// machine's load: after step k's start is durable and before it runs,
// and, for a write step, after the worker wrote the file and before its
// completion was journaled (the write happened, its record did not), which
// resume reconciles by hash instead of writing again.
func TestE2ECrashDuringEachStep(t *testing.T) {
	t.Parallel()
	bin := failpointBinary(t)
	ref := newEnv(t)
	refThread := ref.must("thread", "new", "--yes")
	ref.must("send", refThread, crashPlan)
	want := summarizeRun(t, ref, refThread)
	if want.status != "completed" || want.files["a.txt"] != "uno\n" || want.llmCalls != 5 {
		t.Fatalf("uninterrupted run: %+v", want)
	}
	wantWrites := map[string]int{"a.txt": 2, "b.txt": 1, "c.txt": 1}
	writes := map[int]bool{1: true, 2: true, 4: true}
	for k := 1; k <= 4; k++ {
		for _, wrote := range []bool{false, true} {
			if wrote && !writes[k] {
				continue
			}
			e := newEnv(t)
			w := watchWrites(t, e.ws)
			th := e.must("thread", "new", "--yes")
			point := fmt.Sprintf("step.started.after:%d", k)
			if wrote {
				point = fmt.Sprintf("step.done.before:%d", k)
			}
			crashDuring(t, bin, e, point, "send", th, crashPlan)
			e.must("resume", th)
			got := summarizeRun(t, e, th)
			if got.status != want.status || got.reply != want.reply || got.llmCalls != want.llmCalls ||
				strings.Join(got.steps, "|") != strings.Join(want.steps, "|") {
				t.Fatalf("k=%d wrote=%v: resumed run differs:\n got %+v\nwant %+v", k, wrote, got, want)
			}
			for f, body := range want.files {
				if got.files[f] != body {
					t.Fatalf("k=%d: %s = %q, want %q", k, f, got.files[f], body)
				}
			}
			for f, n := range wantWrites {
				if c := w.count(f); c != n {
					t.Fatalf("k=%d wrote=%v: %s written %d times by the agent, want %d", k, wrote, f, c, n)
				}
			}
			raw := e.must("thread", "show", th, "--json")
			var v cli.ThreadView
			json.Unmarshal([]byte(raw), &v)
			if a := v.Runs[0].Attempts; len(a) != 2 || a[1].Reason != "provider_recovery" {
				t.Fatalf("k=%d wrote=%v: attempts %+v, want the run recovered by a provider_recovery attempt", k, wrote, a)
			}
		}
	}
}
