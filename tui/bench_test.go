package tui

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/creack/pty"
	"github.com/nexus-tui/nexus/core"
)

// The TUI's benchmarks (BENCHMARKS.md, TUI section). Each runs the
// real program (Run) on a real PTY pair: the program reads keys from and
// draws to the PTY's child side; the benchmark writes keys to and reads
// frames from its parent side, like a terminal emulator. The backend is a
// stub that serves a projection built in memory from core events.

// benchState builds a projection the way the host does, by applying
// events: threads of completed runs, each run a model call and a reply
// streamed in journaled text chunks. It applies exactly events events.
func benchState(tb testing.TB, threads, events int) *core.State {
	st := core.NewState()
	var seq uint64
	apply := func(ev core.Event) {
		seq++
		ev.Seq = seq
		if err := st.Apply(&ev); err != nil {
			tb.Fatal(err)
		}
	}
	per := events / threads
	for t := range threads {
		id := fmt.Sprintf("t%03d", t)
		at := int64(t+1) * int64(time.Second)
		th := &core.Thread{ID: id, Title: "agent " + strconv.Itoa(t), Provider: "builtin", Status: core.ThreadIdle,
			Caps: core.Capabilities{Steer: true, Interrupt: true}, CreatedAt: at, UpdatedAt: at}
		apply(core.Event{Type: core.EvThreadUpdated, Thread: id, Payload: core.Payload{Thread: th}})
		left := per - 1
		for n := 1; left > 0; n++ {
			left -= benchRun(apply, id, n, min(left, 20))
		}
	}
	for seq < uint64(events) { // the remainder of an uneven split
		apply(core.Event{Type: core.EvRuntimeWarning, Payload: core.Payload{Note: "padding"}})
	}
	return st
}

// benchRun applies up to budget (>= 1) events of one run and returns how
// many it applied.
func benchRun(apply func(core.Event), thread string, n, budget int) int {
	used := 0
	emit := func(ev core.Event) bool {
		if used == budget {
			return false
		}
		apply(ev)
		used++
		return true
	}
	r := &core.Run{ID: core.RunID(thread, n), Thread: thread, Ordinal: n, Status: core.RunCompleted,
		Text: "step " + strconv.Itoa(n) + ": read the file and summarize it", Attempts: 1, CreatedAt: 1, StartedAt: 1, EndedAt: 2e9}
	if !emit(core.Event{Type: core.EvRunUpdated, Thread: thread, Run: r.ID, Payload: core.Payload{Run: r}}) {
		return used
	}
	a := &core.Attempt{ID: core.AttemptID(r.ID, 1), Run: r.ID, Thread: thread, N: 1, Reason: core.ReasonInitial,
		Status: core.AttemptCompleted, StartedAt: 1, EndedAt: 2e9}
	node := func(i int, kind core.NodeKind, title string) *core.Node {
		nd := &core.Node{ID: core.NodeID(a.ID, i), Attempt: a.ID, Run: r.ID, Thread: thread, Kind: kind,
			Status: core.NodeCompleted, Title: title, StartedAt: 1, EndedAt: 2e9}
		if i > 1 {
			nd.Parent = core.NodeID(a.ID, 1)
		}
		return nd
	}
	llm := node(2, core.NodeLLMCall, "sim")
	llm.TokensIn, llm.TokensOut, llm.CostUSD, llm.DurationMS = 900, 120, 0.002, 310
	reply := node(3, core.NodeAssistantMessage, "assistant")
	for _, ev := range []core.Event{
		{Type: core.EvAttemptUpdated, Payload: core.Payload{Attempt: a}},
		{Type: core.EvNodeUpdated, Payload: core.Payload{Node: node(1, core.NodeRootTurn, "turn")}},
		{Type: core.EvNodeUpdated, Payload: core.Payload{Node: llm}},
		{Type: core.EvNodeUpdated, Payload: core.Payload{Node: reply}},
	} {
		ev.Thread, ev.Run = thread, r.ID
		if !emit(ev) {
			return used
		}
	}
	for emit(core.Event{Type: core.EvNodeText, Thread: thread, Run: r.ID, Node: reply.ID,
		Payload: core.Payload{Text: "The file says what the project does and how to build it. "}}) {
	}
	return used
}

// benchBackend serves a fixed projection and a live feed the benchmark
// writes to.
type benchBackend struct {
	st   *core.State
	feed chan core.Event
}

func (b *benchBackend) Submit(ctx context.Context, cmd core.Command) (*core.Receipt, error) {
	return &core.Receipt{Command: cmd.ID, Kind: cmd.Kind, Thread: cmd.Thread}, nil
}

func (b *benchBackend) State(ctx context.Context) (*core.State, error) { return b.st.Clone(), nil }

func (b *benchBackend) Subscribe(ctx context.Context, from uint64) (*core.Subscription, error) {
	return &core.Subscription{State: b.st.Clone(), Events: b.feed, Err: func() error { return ctx.Err() }}, nil
}

// countingTTY is the PTY's child side as the program's output, counting
// the frames (writes) and bytes the renderer sends.
type countingTTY struct {
	*os.File
	writes, bytes atomic.Int64
}

func (c *countingTTY) Write(p []byte) (int, error) {
	c.writes.Add(1)
	c.bytes.Add(int64(len(p)))
	return c.File.Write(p)
}

// chunk is what one read of the PTY's parent side returned, and when.
type chunk struct {
	at time.Time
	n  int
}

// ptyRun is the program running on a PTY.
type ptyRun struct {
	ptm    *os.File
	out    *countingTTY
	chunks chan chunk
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// startOnPTY runs the TUI on a new 120x40 PTY pair over backend.
func startOnPTY(tb testing.TB, backend Backend) *ptyRun {
	ptm, pts, err := pty.Open()
	if err != nil {
		tb.Skipf("no PTY on this machine: %v", err)
	}
	if err := pty.Setsize(ptm, &pty.Winsize{Rows: 40, Cols: 120}); err != nil {
		tb.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := &ptyRun{ptm: ptm, out: &countingTTY{File: pts}, chunks: make(chan chunk, 1<<16), cancel: cancel}
	r.wg.Add(2)
	go r.read()
	go func() {
		defer r.wg.Done()
		env := []string{"TERM=xterm-256color", "COLORTERM=truecolor", "HOME=" + tb.TempDir()}
		if err := Run(ctx, backend, Options{StateDir: tb.TempDir(), HostLabel: "bench",
			IO: IO{Input: pts, Output: r.out, Env: env}}); err != nil {
			tb.Error(err)
		}
	}()
	tb.Cleanup(func() {
		cancel()
		pts.Close()
		ptm.Close()
		r.wg.Wait()
	})
	return r
}

// read records what the PTY's parent side receives until it closes.
func (r *ptyRun) read() {
	defer r.wg.Done()
	buf := make([]byte, 1<<16)
	for {
		n, err := r.ptm.Read(buf)
		if n > 0 {
			r.chunks <- chunk{at: time.Now(), n: n}
		}
		if err != nil {
			return
		}
	}
}

// quiet waits until nothing has arrived for d, or fails after a while.
func (r *ptyRun) quiet(tb testing.TB, d time.Duration) {
	deadline := time.After(30 * time.Second)
	for {
		select {
		case <-r.chunks:
		case <-time.After(d):
			return
		case <-deadline:
			tb.Fatal("the screen never went quiet")
		}
	}
}

// settle drains what arrives for d.
func (r *ptyRun) settle(d time.Duration) {
	end := time.After(d)
	for {
		select {
		case <-r.chunks:
		case <-end:
			return
		}
	}
}

// keyToFrame writes one key and returns how long until the first bytes
// of the next frame arrived.
func (r *ptyRun) keyToFrame(tb testing.TB, key []byte) time.Duration {
	t0 := time.Now()
	if _, err := r.ptm.Write(key); err != nil {
		tb.Fatal(err)
	}
	select {
	case c := <-r.chunks:
		return c.at.Sub(t0)
	case <-time.After(5 * time.Second):
		tb.Fatalf("no frame within 5s of the key %q (%d frames so far)", key, r.out.writes.Load())
	}
	return 0
}

func percentile(ds []time.Duration, p float64) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[int(float64(len(s)-1)*p)]
}

// BenchmarkKeyToFrame: key press to frame written, with 50 threads and
// 100,000 events loaded (target: p99 <= 16 ms). Each sample types a
// character into the composer or deletes it, after the screen went
// quiet. The same is measured on a minimal Bubble Tea program at
// baselineFPS, on the same kind of PTY, as the floor this machine allows.
func BenchmarkKeyToFrame(b *testing.B) {
	for _, tc := range []struct{ threads, events int }{{50, 100_000}, {10_000, 1_000_000}} {
		b.Run(fmt.Sprintf("%dthreads-%devents", tc.threads, tc.events), func(b *testing.B) {
			benchKeyToFrame(b, benchState(b, tc.threads, tc.events))
		})
	}
}

// benchKeyToFrame measures key press to frame written with st loaded,
// against the minimal program on its own PTY in the same run.
func benchKeyToFrame(b *testing.B, st *core.State) {
	r := startOnPTY(b, &benchBackend{st: st, feed: make(chan core.Event)})
	floor := startMinimalOnPTY(b)
	r.quiet(b, 500*time.Millisecond)
	floor.quiet(b, 500*time.Millisecond)
	var lat, base []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for j := range 200 {
			key := []byte("x")
			if j%2 == 1 {
				key = []byte{0x7f} // backspace
			}
			lat = append(lat, r.keyToFrame(b, key))
			// A random pause, so keys land anywhere in the renderer's
			// frame period as a person's do (a fixed pause locks onto it).
			r.quiet(b, 30*time.Millisecond+time.Duration(rand.Int64N(int64(20*time.Millisecond))))
			base = append(base, floor.keyToFrame(b, key))
			floor.quiet(b, 30*time.Millisecond+time.Duration(rand.Int64N(int64(20*time.Millisecond))))
		}
	}
	b.StopTimer()
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	b.ReportMetric(ms(percentile(lat, 0.5)), "p50-ms")
	b.ReportMetric(ms(percentile(lat, 0.99)), "p99-ms")
	b.ReportMetric(ms(percentile(lat, 1)), "max-ms")
	b.ReportMetric(ms(percentile(base, 0.5)), "floor-p50-ms")
	b.ReportMetric(ms(percentile(base, 0.99)), "floor-p99-ms")
	b.ReportMetric(0, "ns/op")
}

// baselineFPS is the minimal program's frame rate: stock Bubble Tea at
// its fastest (120), the rate the UI ran at before frames on demand.
const baselineFPS = 120

// minimal is the smallest full-screen program: one line that changes
// with every key.
type minimal struct{ keys int }

func (m *minimal) Init() tea.Cmd { return nil }

func (m *minimal) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if _, ok := msg.(tea.KeyPressMsg); ok {
		m.keys++
	}
	return m, nil
}

func (m *minimal) View() tea.View {
	v := tea.NewView("keys: " + strconv.Itoa(m.keys))
	v.AltScreen = true
	return v
}

// startMinimalOnPTY runs the minimal program on a PTY like startOnPTY.
func startMinimalOnPTY(tb testing.TB) *ptyRun {
	ptm, pts, err := pty.Open()
	if err != nil {
		tb.Skipf("no PTY on this machine: %v", err)
	}
	pty.Setsize(ptm, &pty.Winsize{Rows: 40, Cols: 120})
	ctx, cancel := context.WithCancel(context.Background())
	r := &ptyRun{ptm: ptm, out: &countingTTY{File: pts}, chunks: make(chan chunk, 1<<16), cancel: cancel}
	r.wg.Add(2)
	go r.read()
	go func() {
		defer r.wg.Done()
		p := tea.NewProgram(&minimal{}, tea.WithContext(ctx), tea.WithInput(pts), tea.WithOutput(r.out),
			tea.WithEnvironment([]string{"TERM=xterm-256color"}), tea.WithFPS(baselineFPS))
		p.Run()
	}()
	tb.Cleanup(func() {
		cancel()
		pts.Close()
		ptm.Close()
		r.wg.Wait()
	})
	return r
}

// BenchmarkStreamBytesPerFrame: one agent streams its reply (50 deltas
// a second, journaled every second like the host does) while the
// spinner turns; the average bytes the renderer writes per frame
// (target: <= 120).
func BenchmarkStreamBytesPerFrame(b *testing.B) {
	j := newJournal(b)
	j.thread("t1", "streaming", core.ThreadRunning, 1, sec)
	run := j.run("t1", 1, core.RunRunning, "tell a long story", 2*sec, 0)
	n := j.node(run, 2, core.NodeAssistantMessage, "", "assistant", "")
	feed := make(chan core.Event, 1024)
	r := startOnPTY(b, &benchBackend{st: j.st, feed: feed})
	r.settle(time.Second) // the first frames; the spinner never lets it go quiet
	// The spinner alone, for comparison.
	sw, sb := r.out.writes.Load(), r.out.bytes.Load()
	r.settle(time.Second)
	sw, sb = r.out.writes.Load()-sw, r.out.bytes.Load()-sb
	words := strings.Fields("once upon a time there was a terminal that drew only what changed and the agents " +
		"streamed their thoughts into it token by token while the person watched")
	w0, b0 := r.out.writes.Load(), r.out.bytes.Load()
	b.ResetTimer()
	seq := j.st.Seq
	for i := 0; i < b.N; i++ {
		var journaled strings.Builder
		var pending strings.Builder
		tick := time.NewTicker(20 * time.Millisecond)
		for k := range 150 { // 3 s at 50 deltas a second
			<-tick.C
			text := words[k%len(words)] + " "
			pending.WriteString(text)
			feed <- core.Event{Type: core.EvNodeDelta, Thread: "t1", Run: run.ID, Node: n.ID, Payload: core.Payload{Text: text}}
			if k%50 == 49 { // the host journals streamed text every second
				seq++
				feed <- core.Event{Seq: seq, Type: core.EvNodeText, Thread: "t1", Run: run.ID, Node: n.ID,
					Payload: core.Payload{Text: pending.String()}}
				journaled.WriteString(pending.String())
				pending.Reset()
			}
		}
		tick.Stop()
	}
	b.StopTimer()
	time.Sleep(100 * time.Millisecond)
	writes, bytes := r.out.writes.Load()-w0, r.out.bytes.Load()-b0
	if writes == 0 {
		b.Fatal("no frame was written while the agent streamed")
	}
	b.ReportMetric(float64(bytes)/float64(writes), "bytes/frame")
	b.ReportMetric(float64(writes)/(3*float64(b.N)), "frames/s")
	b.ReportMetric(float64(bytes)/(3*float64(b.N)), "bytes/s")
	if sw > 0 {
		b.ReportMetric(float64(sb)/float64(sw), "spinner-only-bytes/frame")
	}
	b.ReportMetric(0, "ns/op")
}

// BenchmarkRSS100x1000: the resident memory of a process running the TUI
// with 100 threads of 1,000 events each loaded, every thread shown once
// (target: <= 150 MiB). It runs in a fresh child process (this test
// binary, TestRSSChild), so nothing else the tests allocated counts; it
// also reports the child's RSS before the projection was built and its Go
// heap in use at the end.
func BenchmarkRSS100x1000(b *testing.B) {
	var rss, base, heap float64
	for i := 0; i < b.N; i++ {
		cmd := exec.Command(os.Args[0], "-test.run=^TestRSSChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), "NEXUS_TUI_RSS_CHILD=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			b.Fatalf("%v: %s", err, out)
		}
		if _, err := fmt.Sscanf(string(out[max(0, bytes.Index(out, []byte("rss="))):]), "rss=%f base=%f heap=%f", &rss, &base, &heap); err != nil {
			b.Fatalf("child output %q: %v", out, err)
		}
	}
	b.ReportMetric(rss, "rss-MiB")
	b.ReportMetric(base, "base-rss-MiB")
	b.ReportMetric(heap, "heap-MiB")
	b.ReportMetric(0, "ns/op")
}

// TestRSSChild is BenchmarkRSS100x1000's child; it does nothing in a
// normal test run.
func TestRSSChild(t *testing.T) {
	if os.Getenv("NEXUS_TUI_RSS_CHILD") == "" {
		t.Skip("run by BenchmarkRSS100x1000")
	}
	runtime.GC()
	base := rssMiB(t)
	st := benchState(t, 100, 100_000)
	r := startOnPTY(t, &benchBackend{st: st, feed: make(chan core.Event)})
	r.quiet(t, 500*time.Millisecond)
	for range 100 { // alt+down through every thread, each transcript drawn
		r.ptm.Write([]byte("\x1b[1;3B"))
		r.quiet(t, 20*time.Millisecond)
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	fmt.Printf("rss=%.1f base=%.1f heap=%.1f\n", rssMiB(t), base, float64(ms.HeapInuse)/(1<<20))
}

// rssMiB reads this process's resident set size from /proc.
func rssMiB(tb testing.TB) float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		tb.Skipf("no /proc/self/status: %v", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
			return float64(kb) / 1024
		}
	}
	tb.Skip("no VmRSS in /proc/self/status")
	return 0
}

// BenchmarkUpdateViewKey is the model's share of a key press: Update
// and View with 50 threads and 100,000 events, without a terminal.
func BenchmarkUpdateViewKey(b *testing.B) {
	hs := newHarness(b, benchState(b, 50, 100_000), 120, 40)
	keys := []tea.KeyPressMsg{keyMsg("x"), keyMsg("backspace")}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		hs.m.Update(keys[i%2])
		_ = hs.m.View()
	}
}

// BenchmarkIdleCPU: the TUI's process with 8 idle threads on screen,
// nothing happening, for 10 s: the share of one core it uses and the
// bytes it writes to the terminal (the target in BENCHMARKS.md is host
// and TUI together under 0.5% of a core with 8 idle agents). The
// minimal Bubble Tea program is measured the same way: the renderer's
// frame ticker runs even when nothing changes, and is most of the cost.
func BenchmarkIdleCPU(b *testing.B) {
	measure := func(r *ptyRun) (pct float64, written int64) {
		r.quiet(b, 500*time.Millisecond)
		w0 := r.out.bytes.Load()
		c0, t0 := cpuTime(), time.Now()
		time.Sleep(10 * time.Second)
		return 100 * float64(cpuTime()-c0) / float64(time.Since(t0)), r.out.bytes.Load() - w0
	}
	var pct, floor float64
	var written int64
	for i := 0; i < b.N; i++ {
		r := startOnPTY(b, &benchBackend{st: benchState(b, 8, 800), feed: make(chan core.Event)})
		pct, written = measure(r)
		r.cancel()
		f := startMinimalOnPTY(b)
		floor, _ = measure(f)
		f.cancel()
	}
	b.ReportMetric(pct, "cpu-%")
	b.ReportMetric(floor, "floor-cpu-%")
	b.ReportMetric(float64(written), "bytes-written")
	b.ReportMetric(0, "ns/op")
}

// cpuTime is the user and system CPU time this process used so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
