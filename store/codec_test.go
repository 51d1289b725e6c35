package store

import (
	"bytes"
	"fmt"
	"github.com/nexus-tui/nexus/internal/journalgen"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/nexus-tui/nexus/core"
	"github.com/vmihailenco/msgpack/v5"
)

// reflectEncode is the reference: vmihailenco/msgpack's reflection
// encoder with the one option the format uses.
func reflectEncode(t testing.TB, v any) []byte {
	t.Helper()
	var buf bytes.Buffer
	e := msgpack.NewEncoder(&buf)
	e.UseCompactInts(true)
	if err := e.Encode(v); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// checkEvent asserts that the hand-written codec and the reflection codec
// agree on ev: same bytes out, same value back in.
func checkEvent(t *testing.T, ev *core.Event) {
	t.Helper()
	mine := appendEvent(nil, ev)
	if want := reflectEncode(t, ev); !bytes.Equal(mine, want) {
		t.Fatalf("seq %d: custom encoding differs from reflection\n got %s\nwant %s", ev.Seq, short(mine), short(want))
	}
	var got, ref core.Event
	if err := decodeEvent(string(mine), &got); err != nil {
		t.Fatalf("seq %d: custom decode: %v", ev.Seq, err)
	}
	if err := msgpack.Unmarshal(mine, &ref); err != nil {
		t.Fatalf("seq %d: reflection decode: %v", ev.Seq, err)
	}
	if !reflect.DeepEqual(got, ref) {
		t.Fatalf("seq %d: custom and reflection decode differ\n got %s\nwant %s", ev.Seq, short(got), short(ref))
	}
	if !reflect.DeepEqual(got, *ev) {
		t.Fatalf("seq %d: round trip changed the event\n got %s\nwant %s", ev.Seq, short(got), short(*ev))
	}
}

// short formats v for a failure message without flooding the log.
func short(v any) string {
	s := fmt.Sprintf("%+v", v)
	if b, ok := v.([]byte); ok {
		s = fmt.Sprintf("%x", b)
	}
	if len(s) > 400 {
		s = s[:400] + "..."
	}
	return s
}

func TestEventCodecMatchesReflection(t *testing.T) {
	for _, ev := range journalgen.Flatten(journalgen.New(1).Commits(3000)) {
		checkEvent(t, &ev)
	}
}

// fill sets every exported field reachable from v, each non-empty with
// probability pSet, so a field added to core without a codec change makes
// TestCodecCoversFields fail.
func fill(v reflect.Value, rnd *rand.Rand, pSet float64) {
	if v.Kind() != reflect.Struct && v.Kind() != reflect.Ptr && rnd.Float64() >= pSet {
		return
	}
	switch v.Kind() {
	case reflect.Ptr:
		if rnd.Float64() < pSet {
			v.Set(reflect.New(v.Type().Elem()))
			fill(v.Elem(), rnd, pSet)
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if f := v.Type().Field(i); f.IsExported() && f.Tag.Get("msgpack") != "-" {
				fill(v.Field(i), rnd, pSet)
			}
		}
	case reflect.String:
		n := []int{1, 5, 31, 32, 255, 256}[rnd.IntN(6)]
		if rnd.IntN(50) == 0 {
			n = []int{65535, 65536}[rnd.IntN(2)] // str16 and str32 headers
		}
		v.SetString(strings.Repeat("é", n/2+1)[:n])
	case reflect.Int, reflect.Int64:
		v.SetInt([]int64{1, -1, -32, -33, 127, 128, -128, -129, 255, 256, 65535, 65536, -32769,
			math.MaxInt32, math.MaxInt32 + 1, math.MinInt32 - 1, math.MaxInt64, math.MinInt64}[rnd.IntN(18)])
	case reflect.Uint64:
		v.SetUint([]uint64{1, 127, 128, 255, 256, 65535, 65536, math.MaxUint32, math.MaxUint32 + 1, math.MaxUint64}[rnd.IntN(10)])
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Float64:
		v.SetFloat(rnd.NormFloat64() * 1e3)
	case reflect.Slice:
		n := 1 + rnd.IntN(20) // an empty slice under omitempty decodes as nil, by design
		s := reflect.MakeSlice(v.Type(), n, n)
		for i := 0; i < n; i++ {
			fill(s.Index(i), rnd, 1)
		}
		v.Set(s)
	case reflect.Map:
		n := 1 + rnd.IntN(6)
		m := reflect.MakeMapWithSize(v.Type(), n)
		for i := 0; i < n; i++ {
			val := reflect.New(v.Type().Elem().Elem()) // entities are never nil in a State
			fill(val.Elem(), rnd, pSet)
			m.SetMapIndex(reflect.ValueOf(string(rune('a'+rnd.IntN(26)))+strings.Repeat("x", rnd.IntN(40))), val)
		}
		v.Set(m)
	default:
		panic("fill: unhandled kind " + v.Kind().String() + ": extend fill and the codec")
	}
}

func TestCodecCoversFields(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 300; i++ {
		var ev core.Event
		fill(reflect.ValueOf(&ev).Elem(), rnd, []float64{1, 0.5, 0.1}[i%3])
		checkEvent(t, &ev)
	}
}

// exported compares the exported fields of two States (the derived index
// is unexported and not part of the format).
func exported(t *testing.T, got, want *core.State) {
	t.Helper()
	g, w := reflect.ValueOf(got).Elem(), reflect.ValueOf(want).Elem()
	for i := 0; i < g.NumField(); i++ {
		if f := g.Type().Field(i); f.IsExported() && f.Tag.Get("msgpack") != "-" && !reflect.DeepEqual(g.Field(i).Interface(), w.Field(i).Interface()) {
			t.Fatalf("State.%s differs:\n got %s\nwant %s", g.Type().Field(i).Name, short(g.Field(i).Interface()), short(w.Field(i).Interface()))
		}
	}
}

func TestStateCodecMatchesReflection(t *testing.T) {
	rnd := rand.New(rand.NewPCG(5, 6))
	for i := 0; i < 30; i++ {
		st := &core.State{}
		fill(reflect.ValueOf(st).Elem(), rnd, []float64{1, 0.6}[i%2])
		b, err := EncodeState(st)
		if err != nil {
			t.Fatal(err)
		}
		// Map order is random in Go; sorted keys make encoding stable.
		for j := 0; j < 3; j++ {
			if again, _ := EncodeState(st); !bytes.Equal(again, b) {
				t.Fatal("EncodeState is not deterministic")
			}
		}
		got, err := DecodeState(b)
		if err != nil {
			t.Fatal(err)
		}
		var ref core.State
		if err := msgpack.Unmarshal(b, &ref); err != nil {
			t.Fatalf("reflection cannot read EncodeState output: %v", err)
		}
		// DecodeState always returns usable (non-nil) maps, like NewState.
		ref.Reindex()
		st.Reindex()
		exported(t, got, &ref)
		exported(t, got, st)
	}
}

func TestDecodeRefusesGarbage(t *testing.T) {
	good := appendEvent(nil, &journalgen.Flatten(journalgen.New(2).Commits(1))[0])
	cases := map[string][]byte{
		"empty":          {},
		"nil":            {0xc0},
		"not a map":      {0x93, 1, 2, 3},
		"truncated":      good[:len(good)-3],
		"trailing bytes": append(append([]byte{}, good...), 0),
		"huge map":       {0xdf, 0xff, 0xff, 0xff, 0xff},
		"string as seq":  {0x81, 0xa1, 'q', 0xa1, 'x'},
		"bad code":       {0x81, 0xa1, 'z', 0xc1},
		"deep nesting":   append(append([]byte{0x81, 0xa1, 'z'}, bytes.Repeat([]byte{0x91}, 100000)...), 0xc0, 0),
	}
	for name, b := range cases {
		var ev core.Event
		if err := decodeEvent(string(b), &ev); err == nil {
			t.Errorf("%s: decoded without error: %+v", name, ev)
		}
	}
}

// FuzzDecodeEvent feeds arbitrary bytes to the event decoder. It must never
// panic; whatever it accepts must re-encode to bytes that both codecs read
// back to the same event.
func FuzzDecodeEvent(f *testing.F) {
	for _, ev := range journalgen.Flatten(journalgen.New(7).Commits(8)) {
		f.Add(appendEvent(nil, &ev))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var ev core.Event
		if decodeEvent(string(b), &ev) != nil {
			return
		}
		canon := appendEvent(nil, &ev)
		var mine, ref core.Event
		if err := decodeEvent(string(canon), &mine); err != nil {
			t.Fatalf("re-encoded event does not decode: %v", err)
		}
		if err := msgpack.Unmarshal(canon, &ref); err != nil {
			t.Fatalf("reflection cannot read the re-encoded event: %v", err)
		}
		if !bytes.Equal(appendEvent(nil, &mine), canon) || !bytes.Equal(appendEvent(nil, &ref), canon) {
			t.Fatal("codecs disagree on a re-encoded event")
		}
	})
}

// DecodeEvent reads events one after another from their concatenation,
// returning what follows each, and refuses what decodeEvent refuses.
func TestDecodeEventRest(t *testing.T) {
	evs := journalgen.Flatten(journalgen.New(3).Commits(40))
	var all []byte
	for i := range evs {
		all = appendEvent(all, &evs[i])
	}
	rest := string(all)
	for i := range evs {
		var got core.Event
		var err error
		if rest, err = DecodeEvent(rest, &got); err != nil {
			t.Fatalf("event %d: %v", i, err)
		}
		if !reflect.DeepEqual(got, evs[i]) {
			t.Fatalf("event %d decoded as %s, want %s", i, short(got), short(evs[i]))
		}
	}
	if rest != "" {
		t.Fatalf("%d bytes left after the last event", len(rest))
	}
	for _, bad := range []string{"", "\xc0", "\x91\xc0", "\xdf\xff\xff\xff\xff", string(all[:5])} {
		var ev core.Event
		if _, err := DecodeEvent(bad, &ev); err == nil {
			t.Errorf("%x: accepted", bad)
		}
	}
}

// TestCheckpointFilesCompatible: a checkpoint written before Files and
// MoreFiles existed (encoded here from the old struct) decodes with
// neither and re-encodes to the same bytes, so old journals verify and
// old snapshots still equal a replay; a reader that predates the fields
// (the old struct) skips them.
func TestCheckpointFilesCompatible(t *testing.T) {
	type oldCheckpoint struct {
		ID     string `msgpack:"id"`
		Thread string `msgpack:"th"`
		Run    int    `msgpack:"ru"`
		Scope  string `msgpack:"sc"`
		Status string `msgpack:"s"`
		Ref    string `msgpack:"rf,omitempty"`
		Reason string `msgpack:"re,omitempty"`
		Commit string `msgpack:"cm,omitempty"`
	}
	old := oldCheckpoint{ID: "t1/cp/run1", Thread: "t1", Run: 1, Scope: "run1", Status: string(core.CkReady),
		Ref: "refs/nexus/checkpoints/t1/run1", Commit: strings.Repeat("c", 40)}
	b := reflectEncode(t, old)
	got := decCheckpoint(&reader{s: string(b)})
	if got == nil || got.Files != nil || got.MoreFiles != 0 || got.Commit != old.Commit {
		t.Fatalf("old checkpoint decoded as %+v", got)
	}
	e := &enc{}
	encCheckpoint(e, got)
	if !bytes.Equal(e.b, b) {
		t.Fatalf("old checkpoint re-encodes differently\n got %x\nwant %x", e.b, b)
	}

	cur := core.Checkpoint{ID: old.ID, Thread: "t1", Run: 1, Scope: "run1", Status: core.CkReady, Commit: old.Commit,
		Files: []core.FileChange{{Path: "a.txt", Status: "M", Added: 3, Deleted: 1}, {Path: "p.png", Status: "A", Binary: true}}, MoreFiles: 7}
	e = &enc{}
	encCheckpoint(e, &cur)
	if want := reflectEncode(t, cur); !bytes.Equal(e.b, want) {
		t.Fatalf("checkpoint with files: custom encoding differs from reflection\n got %x\nwant %x", e.b, want)
	}
	if back := decCheckpoint(&reader{s: string(e.b)}); !reflect.DeepEqual(*back, cur) {
		t.Fatalf("round trip: %+v, want %+v", back, cur)
	}
	var older oldCheckpoint
	if err := msgpack.Unmarshal(e.b, &older); err != nil || older.Commit != cur.Commit || older.ID != cur.ID {
		t.Fatalf("a reader without the new fields got %+v, %v", older, err)
	}
}
