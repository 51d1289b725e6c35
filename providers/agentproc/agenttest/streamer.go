package agenttest

import (
	"strconv"
	"testing"
)

var streamer = &fakeAgent{name: "streamer"}

// Streamer builds the streaming fake agent (testdata/agents/streamer)
// once per test binary and returns its path. It is started as
// `streamer claude|codex|acp` and writes numbered, timestamped text
// deltas; ParseStamps reads them back.
func Streamer(t testing.TB) string {
	t.Helper()
	return streamer.build(t)
}

// Stamp is one delta of the streaming agent: its sequence number and the
// wall clock (Unix nanoseconds) at which the agent wrote it.
type Stamp struct {
	Seq     int
	WroteNS int64
}

// ParseStamps calls f for each "SEQ:NANOS;" in text, in order. Text the
// adapter or the runner joined from several deltas yields each of them.
// It reports how many it found; anything malformed ends the scan.
func ParseStamps(text string, f func(Stamp)) int {
	n := 0
	for len(text) > 0 {
		colon, semi := -1, -1
		for i := 0; i < len(text); i++ {
			if text[i] == ':' && colon < 0 {
				colon = i
			} else if text[i] == ';' {
				semi = i
				break
			}
		}
		if colon < 0 || semi < colon {
			return n
		}
		seq, err1 := strconv.Atoi(text[:colon])
		ns, err2 := strconv.ParseInt(text[colon+1:semi], 10, 64)
		if err1 != nil || err2 != nil {
			return n
		}
		f(Stamp{Seq: seq, WroteNS: ns})
		n++
		text = text[semi+1:]
	}
	return n
}
