package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/providers"
	"github.com/nexus-tui/nexus/providers/acp"
	"github.com/nexus-tui/nexus/providers/agentproc"
	"github.com/nexus-tui/nexus/providers/agentproc/agenttest"
	"github.com/nexus-tui/nexus/providers/claude"
	"github.com/nexus-tui/nexus/providers/codex"
	"github.com/nexus-tui/nexus/store"
)

// adapterDeltas is how many text deltas the fake agent streams per turn.
const adapterDeltas = 10000

// BenchmarkAdapterOverhead measures what an agent adapter adds between an
// agent writing a text delta and a UI subscriber receiving it (target:
// >= 50,000 deltas/s, <= 1 ms added at p99).
//
// The agent is a real child process (testdata/agents/streamer) that
// writes 10,000 delta frames of its protocol, one write(2) each, every one
// stamped with its sequence number and the wall clock just before the
// write. nexus is the real adapter, run by a real core.Runner over a real
// store journal (fsync on), with the provider registry wired as the host
// wires it; the subscriber is Runner.Subscribe, what the TUI uses. A
// delta counts when its stamp first reaches the subscriber, live
// (node.delta) or, if the live queue dropped it, journaled (node.text).
//
// The baseline, in the same iteration, is the same agent binary read by
// the benchmark itself: a line read and a JSON decode per frame, the
// floor of any reader. flood writes as fast as the agent can: the
// throughput target; its latency includes the frames queued in the pipe
// behind a slower reader. paced writes one delta every 100 µs (10,000
// deltas/s, a fifth of the throughput target), so that a reader that
// keeps up shows its per-frame latency, not a queue.
func BenchmarkAdapterOverhead(b *testing.B) {
	bin := agenttest.Streamer(b)
	for _, pace := range []struct {
		name     string
		interval time.Duration
	}{{"flood", 0}, {"paced", 100 * time.Microsecond}} {
		for _, proto := range []string{"claude", "codex", "acp"} {
			b.Run(proto+"-"+pace.name, func(b *testing.B) { benchAdapter(b, bin, proto, pace.interval) })
		}
	}
}

// streamRun is what one reader saw of one turn.
type streamRun struct {
	lat        []time.Duration // per delta: received - written
	perSec     float64         // deltas / (last received - first written)
	viaJournal int             // deltas that reached the subscriber only in journaled text
}

func benchAdapter(b *testing.B, bin, proto string, interval time.Duration) {
	env := []string{fmt.Sprintf("STREAMER_DELTAS=%d", adapterDeltas), "STREAMER_INTERVAL=" + interval.String()}
	h := startAdapterHost(b, bin, proto, env)
	var base, nexus []streamRun
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		base = append(base, baselineStream(b, bin, proto, env))
		nexus = append(nexus, h.stream(b))
	}
	b.StopTimer()
	bl, nl := allLat(base), allLat(nexus)
	us := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1000 }
	b.ReportMetric(medianRate(nexus), "deltas/s")
	b.ReportMetric(medianRate(base), "base-deltas/s")
	b.ReportMetric(us(pct(nl, 0.5)), "p50-µs")
	b.ReportMetric(us(pct(nl, 0.99)), "p99-µs")
	b.ReportMetric(us(pct(bl, 0.5)), "base-p50-µs")
	b.ReportMetric(us(pct(bl, 0.99)), "base-p99-µs")
	b.ReportMetric(us(pct(nl, 0.5)-pct(bl, 0.5)), "added-p50-µs")
	b.ReportMetric(us(pct(nl, 0.99)-pct(bl, 0.99)), "added-p99-µs")
	b.ReportMetric(us(pct(nl, 1)), "max-µs")
	j := 0
	for _, r := range nexus {
		j += r.viaJournal
	}
	b.ReportMetric(float64(j)/float64(len(nexus)), "journal-only/op")
	b.ReportMetric(0, "ns/op")
}

func allLat(rs []streamRun) []time.Duration {
	var out []time.Duration
	for _, r := range rs {
		out = append(out, r.lat...)
	}
	return out
}

func medianRate(rs []streamRun) float64 {
	v := make([]float64, len(rs))
	for i, r := range rs {
		v[i] = r.perSec
	}
	sort.Float64s(v)
	return v[len(v)/2]
}

// collect turns what a reader saw into a streamRun; recv[i] and wrote[i]
// are the receive and write times of delta i.
func collect(recv, wrote []int64) streamRun {
	r := streamRun{lat: make([]time.Duration, len(recv))}
	last := int64(0)
	for i := range recv {
		r.lat[i] = time.Duration(recv[i] - wrote[i])
		last = max(last, recv[i])
	}
	r.perSec = float64(len(recv)) / time.Duration(last-wrote[0]).Seconds()
	return r
}

// baselineStream runs the agent with no nexus in between: the benchmark
// sends the line that starts a turn and reads the frames itself.
func baselineStream(b *testing.B, bin, proto string, env []string) streamRun {
	c := exec.Command(bin, proto)
	c.Env = append(os.Environ(), env...)
	in, err := c.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	out, err := c.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := c.Start(); err != nil {
		b.Fatal(err)
	}
	defer c.Wait()
	defer in.Close()
	start := map[string]string{
		"claude": `{"type":"user","message":{"role":"user","content":[{"type":"text","text":"go"}]},"parent_tool_use_id":null}`,
		"codex":  `{"id":1,"method":"turn/start","params":{"threadId":"th-1","input":[{"type":"text","text":"go"}]}}`,
		"acp":    `{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{"sessionId":"s-1","prompt":[{"type":"text","text":"go"}]}}`,
	}[proto]
	if _, err := io.WriteString(in, start+"\n"); err != nil {
		b.Fatal(err)
	}
	recv, wrote := make([]int64, adapterDeltas), make([]int64, adapterDeltas)
	got := 0
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 64<<10), agentproc.MaxFrame)
	for got < adapterDeltas && sc.Scan() {
		text := deltaText(proto, sc.Bytes())
		now := time.Now().UnixNano()
		agenttest.ParseStamps(text, func(s agenttest.Stamp) {
			if s.Seq < adapterDeltas && recv[s.Seq] == 0 {
				recv[s.Seq], wrote[s.Seq] = now, s.WroteNS
				got++
			}
		})
	}
	if got < adapterDeltas {
		b.Fatalf("baseline %s: read %d of %d deltas (%v)", proto, got, adapterDeltas, sc.Err())
	}
	return collect(recv, wrote)
}

// deltaText decodes one frame as a reader of the protocol must and
// returns the text of its delta ("" for other frames).
func deltaText(proto string, line []byte) string {
	switch proto {
	case "claude":
		var f struct {
			Type  string `json:"type"`
			Event struct {
				Type  string `json:"type"`
				Delta struct {
					Type string `json:"type"`
					Text string `json:"text"`
				} `json:"delta"`
			} `json:"event"`
		}
		if json.Unmarshal(line, &f) == nil && f.Type == "stream_event" && f.Event.Delta.Type == "text_delta" {
			return f.Event.Delta.Text
		}
	case "codex":
		var f struct {
			Method string `json:"method"`
			Params struct {
				Delta string `json:"delta"`
			} `json:"params"`
		}
		if json.Unmarshal(line, &f) == nil && f.Method == "item/agentMessage/delta" {
			return f.Params.Delta
		}
	case "acp":
		var f struct {
			Method string `json:"method"`
			Params struct {
				Update struct {
					Kind    string `json:"sessionUpdate"`
					Content struct {
						Text string `json:"text"`
					} `json:"content"`
				} `json:"update"`
			} `json:"params"`
		}
		if json.Unmarshal(line, &f) == nil && f.Method == "session/update" && f.Params.Update.Kind == "agent_message_chunk" {
			return f.Params.Update.Content.Text
		}
	}
	return ""
}

// adapterHost is the host's wiring, in process: the journal, the
// provider registry with the one profile under test, the Runner, and a
// subscriber as the TUI has one.
type adapterHost struct {
	runner *core.Runner
	sub    *core.Subscription
	proto  string
}

func startAdapterHost(b *testing.B, bin, proto string, env []string) *adapterHost {
	st, err := store.Open(filepath.Join(b.TempDir(), "state"), store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	command := []string{bin, proto}
	settings := agentproc.DefaultSettings
	reg := providers.NewRegistry()
	reg.Add(providers.Profile{Name: proto, Kind: proto, New: func(ctx context.Context, sink providers.Sink) providers.Provider {
		switch proto {
		case "claude":
			return claude.New(ctx, sink, claude.Config{Name: proto, Command: command, Env: env, Settings: settings})
		case "codex":
			return codex.New(ctx, sink, codex.Config{Name: proto, Command: command, Env: env, Settings: settings})
		default:
			return acp.New(ctx, sink, acp.Config{Name: proto, Command: command, Env: env, Settings: settings})
		}
	}})
	runner, err := core.NewRunner(core.RunnerConfig{Journal: st, Exec: reg.Exec})
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	reg.Bind(ctx, runner)
	done := make(chan error, 1)
	go func() { done <- runner.Run(ctx) }()
	b.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			b.Error(err)
		}
		// A provider whose Stop hangs must not hang the benchmark: say so
		// and leave it behind.
		closed := make(chan struct{})
		go func() { reg.Close(); close(closed) }()
		select {
		case <-closed:
		case <-time.After(10 * time.Second):
			b.Errorf("the %s provider did not stop within 10 s of Close", proto)
		}
		st.Close()
	})
	sub, err := runner.Subscribe(ctx, 0)
	if err != nil {
		b.Fatal(err)
	}
	return &adapterHost{runner: runner, sub: sub, proto: proto}
}

// stream runs one turn on a new thread (a new agent process) and records
// when each delta reached the subscriber.
func (h *adapterHost) stream(b *testing.B) streamRun {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	caps := map[string]core.Capabilities{"claude": claude.Caps, "codex": codex.Caps, "acp": acp.Caps}[h.proto]
	rec, err := h.runner.Submit(ctx, core.Command{Kind: core.CmdThreadCreate, Provider: h.proto, Caps: caps})
	if err != nil || rec.Reject != nil {
		b.Fatalf("thread.create: %v %+v", err, rec)
	}
	th := rec.Thread
	if rec, err = h.runner.Submit(ctx, core.Command{Kind: core.CmdMessageSend, Thread: th, Text: "stream"}); err != nil || rec.Reject != nil {
		b.Fatalf("message.send: %v %+v", err, rec)
	}
	recv, wrote := make([]int64, adapterDeltas), make([]int64, adapterDeltas)
	got, journalOnly, ended := 0, 0, core.RunStatus("")
	var trail []string // the thread's other events, for a failure message
	for got < adapterDeltas || ended == "" {
		var ev core.Event
		select {
		case e, ok := <-h.sub.Events:
			if !ok {
				b.Fatalf("subscription ended: %v", h.sub.Err())
			}
			ev = e
		case <-ctx.Done():
			b.Fatalf("%s: %d of %d deltas received in a minute; run ended %q", h.proto, got, adapterDeltas, ended)
		}
		now := time.Now().UnixNano()
		if ev.Thread != th {
			continue
		}
		switch ev.Type {
		case core.EvNodeDelta, core.EvNodeText:
			live := ev.Type == core.EvNodeDelta
			agenttest.ParseStamps(ev.Payload.Text, func(s agenttest.Stamp) {
				if s.Seq < adapterDeltas && recv[s.Seq] == 0 {
					recv[s.Seq], wrote[s.Seq] = now, s.WroteNS
					got++
					// The first delta creates the node through the kernel
					// (a journaled node.text): that is not a dropped one.
					if !live && s.Seq > 0 {
						journalOnly++
					}
				}
			})
		default:
			trail = append(trail, eventSummary(ev))
		}
		switch ev.Type {
		case core.EvRunUpdated:
			if r := ev.Payload.Run; r != nil && r.Status != core.RunRunning && r.Status != core.RunWaiting && r.Status != core.RunQueued {
				ended = r.Status
			}
		}
		if ended != "" && ended != core.RunCompleted {
			b.Fatalf("%s: the run ended %s after %d of %d deltas; its other events:\n%s",
				h.proto, ended, got, adapterDeltas, strings.Join(trail, "\n"))
		}
	}
	r := collect(recv, wrote)
	r.viaJournal = journalOnly
	return r
}

// eventSummary is one line about an event for a failure message.
func eventSummary(ev core.Event) string {
	p := ev.Payload
	s := string(ev.Type)
	if p.Note != "" {
		s += " note=" + p.Note
	}
	if p.Node != nil {
		s += fmt.Sprintf(" node=%s/%s (%d bytes of text)", p.Node.Kind, p.Node.Status, len(p.Node.Text))
	}
	if p.Session != nil {
		s += fmt.Sprintf(" session=%s %q", p.Session.State, p.Session.Reason)
	}
	if p.Attempt != nil {
		s += " attempt=" + string(p.Attempt.Status)
	}
	if p.Run != nil {
		s += " run=" + string(p.Run.Status)
		if p.Run.Error != "" {
			s += fmt.Sprintf(" error=%q", p.Run.Error)
		}
	}
	return s
}
