package store

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/internal/journalgen"
)

// lastSeq is the seq of the journal's last event.
func lastSeq(t *testing.T, s *Store) uint64 {
	t.Helper()
	evs := readAll(t, s, 1)
	return evs[len(evs)-1].Seq
}

// A Verifier checking a growing journal a tail at a time ends with the
// same verdict and the same replay as Verify walking all of it, and
// compares each new snapshot once.
func TestVerifierFollowsAGrowingJournal(t *testing.T) {
	s := openT(t, t.TempDir())
	gen := journalgen.New(7)
	v := NewVerifier()
	var compared []uint64
	for round := 0; round < 4; round++ {
		appendAll(t, s, gen.Commits(300), 30)
		seq := lastSeq(t, s)
		if err := s.SaveSnapshot(stateAt(t, s, seq)); err != nil {
			t.Fatal(err)
		}
		appendAll(t, s, gen.Commits(50), 10)
		rep, err := v.Check(context.Background(), s, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !rep.OK || rep.Events != lastSeq(t, s) {
			t.Fatalf("round %d: Check = %+v, want ok through %d", round, rep, lastSeq(t, s))
		}
		if !slices.Equal(rep.Snapshots, []uint64{seq}) {
			t.Fatalf("round %d: compared snapshots %v, want only the new one %d", round, rep.Snapshots, seq)
		}
		compared = append(compared, seq)
	}
	full, err := s.Verify(context.Background())
	if err != nil || !full.OK || full.Events != v.seq {
		t.Fatalf("Verify = %+v, %v after the Verifier passed through %d", full, err, v.seq)
	}
	got, _, err := encodeState(v.State())
	if err != nil {
		t.Fatal(err)
	}
	want, _, _ := encodeState(stateAt(t, s, v.seq))
	if !bytes.Equal(got, want) {
		t.Fatal("the Verifier's replay differs from a full replay")
	}
	// Nothing new: nothing walked, nothing compared again.
	rep, err := v.Check(context.Background(), s, func(*core.Event) { t.Fatal("an old event was handed out again") })
	if err != nil || !rep.OK || len(rep.Snapshots) != 0 {
		t.Fatalf("idle Check = %+v, %v", rep, err)
	}
}

// Each way the journal can go wrong between two checks is reported with
// the seq where it went wrong.
func TestVerifierFindsDamage(t *testing.T) {
	for _, tc := range []struct {
		name   string
		damage func(t *testing.T, dir string, verified, last uint64)
		bad    func(verified, last uint64) uint64 // the FirstBad wanted, 0: none
		reason string
	}{
		{"verified tail rewritten", func(t *testing.T, dir string, verified, _ uint64) { flip(t, dir, verified, 3) },
			func(verified, _ uint64) uint64 { return verified }, "changed or vanished"},
		{"new event damaged", func(t *testing.T, dir string, verified, _ uint64) { flip(t, dir, verified+40, hashSize+20) },
			func(verified, _ uint64) uint64 { return verified + 40 }, ""},
		{"bad new snapshot", func(t *testing.T, dir string, verified, last uint64) {
			s := openT(t, dir)
			st := stateAt(t, s, last)
			st.Threads["bogus"] = &core.Thread{ID: "bogus"}
			if err := s.SaveSnapshot(st); err != nil {
				t.Fatal(err)
			}
			s.Close()
		}, func(uint64, uint64) uint64 { return 0 }, "differs from the full replay"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			s := openT(t, dir)
			gen := journalgen.New(3)
			appendAll(t, s, gen.Commits(200), 20)
			v := NewVerifier()
			if rep, err := v.Check(context.Background(), s, nil); err != nil || !rep.OK {
				t.Fatalf("first Check = %+v, %v", rep, err)
			}
			verified := v.seq
			appendAll(t, s, gen.Commits(200), 20)
			last := lastSeq(t, s)
			s.Close()
			tc.damage(t, dir, verified, last)
			s = openT(t, dir)
			rep, err := v.Check(context.Background(), s, nil)
			if err != nil {
				t.Fatal(err)
			}
			if rep.OK || rep.FirstBad != tc.bad(verified, last) || !strings.Contains(rep.Reason, tc.reason) {
				t.Fatalf("Check = %+v, want a failure at %d saying %q", rep, tc.bad(verified, last), tc.reason)
			}
		})
	}
}
