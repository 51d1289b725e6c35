package store

import (
	"bytes"
	"fmt"
	"github.com/nexus-tui/nexus/internal/journalgen"
	"testing"
	"time"

	"github.com/nexus-tui/nexus/core"
)

// FuzzDecodeState feeds arbitrary bytes to the snapshot body decoder. It
// must never panic or hang, and whatever it accepts must be a projection
// that EncodeState writes and DecodeState reads back to the same bytes:
// a snapshot that loads is one Verify can compare with a replay. Seeds
// live in testdata/fuzz/FuzzDecodeState; more come from replaying
// generated journals.
func FuzzDecodeState(f *testing.F) {
	for _, n := range []int{0, 1, 5, 20} {
		st := core.NewState()
		for _, ev := range journalgen.Flatten(journalgen.New(uint64(n)).Commits(n)) {
			if err := st.Apply(&ev); err != nil {
				f.Fatal(err)
			}
		}
		b, err := EncodeState(st)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		defer hangGuard(fmt.Sprintf("DecodeState(%.200x)", b))()
		st, err := DecodeState(b)
		if err != nil {
			if st != nil {
				t.Fatalf("DecodeState returned a state with its error %v", err)
			}
			return
		}
		canon, err := EncodeState(st)
		if err != nil {
			t.Fatalf("a decoded state does not encode: %v", err)
		}
		again, err := DecodeState(canon)
		if err != nil {
			t.Fatalf("EncodeState output does not decode: %v", err)
		}
		b2, err := EncodeState(again)
		if err != nil {
			t.Fatalf("the round-tripped state does not encode: %v", err)
		}
		if !bytes.Equal(b2, canon) {
			t.Fatalf("encode(decode(x)) is not stable:\n%x\n%x", canon, b2)
		}
		if again.Seq != st.Seq || len(again.Receipts) != len(st.Receipts) || len(again.Threads) != len(st.Threads) {
			t.Fatalf("round trip changed the state: seq %d->%d, %d->%d receipts, %d->%d threads",
				st.Seq, again.Seq, len(st.Receipts), len(again.Receipts), len(st.Threads), len(again.Threads))
		}
	})
}

// hangGuard crashes the test binary if the input is still running after
// a generous budget: the fuzzer then saves the input that hung, which it
// does not do for an input that merely never returns. Call the result
// when the input is done.
func hangGuard(what string) func() {
	t := time.AfterFunc(10*time.Second, func() { panic(what + " ran for over 10s") })
	return func() { t.Stop() }
}

// FuzzDecodeSealed feeds arbitrary bytes to the sealed run decoder (the
// vault's values). It must never panic or hang, and what it accepts must
// re-encode to bytes that decode to the same history.
func FuzzDecodeSealed(f *testing.F) {
	st := core.NewState()
	for _, ev := range journalgen.Flatten(journalgen.New(7).Commits(400)) {
		if err := st.Apply(&ev); err != nil {
			f.Fatal(err)
		}
	}
	for id := range st.Runs {
		if st.Sealable(id) {
			f.Add(encodeSealed(st.SealOf(id)))
		}
	}
	f.Add([]byte{0x80})
	f.Fuzz(func(t *testing.T, b []byte) {
		defer hangGuard(fmt.Sprintf("decodeSealed(%.200x)", b))()
		r, err := decodeSealed(b)
		if err != nil {
			return
		}
		canon := encodeSealed(r)
		again, err := decodeSealed(canon)
		if err != nil {
			t.Fatalf("encodeSealed output does not decode: %v", err)
		}
		if b2 := encodeSealed(again); !bytes.Equal(b2, canon) {
			t.Fatalf("encode(decode(x)) is not stable:\n%x\n%x", canon, b2)
		}
	})
}
