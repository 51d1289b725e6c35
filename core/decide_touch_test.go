package core

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestDecideTouchesOnlyWhatDocSays checks what doc.go says Decide may
// touch, at every step of every scenario in testdata/decide, on the state
// as the kernel holds it and on the same state with every finished run
// sealed, as a state loaded from a snapshot holds it:
//
//   - a clone taken before Decide encodes byte for byte as it did: Decide
//     never writes through an entity it finds in the state, so whatever
//     shares them (a snapshot being encoded, a subscriber's copy) is safe;
//   - the state after Decide encodes exactly like that clone with the
//     returned events applied, and like it unchanged when Decide refused
//     the input;
//   - the sealed state decides the same events and ends up encoding like
//     the hot one: thawing is a representation change.
func TestDecideTouchesOnlyWhatDocSays(t *testing.T) {
	files, _ := filepath.Glob("testdata/decide/*.txt")
	if len(files) == 0 {
		t.Fatal("no scenarios in testdata/decide")
	}
	steps, sealedSteps := 0, 0
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		h := &harness{st: NewState(), clock: 1000}
		for _, b := range parseBlocks(t, string(raw)) {
			in, ok := h.input(t, b.cmd)
			if !ok {
				continue
			}
			where := filepath.Base(f) + ": " + b.cmd
			sealed, n := sealFinished(h.st)
			sealedBefore, sealedWant := sealed.Clone(), stateJSON(t, sealed)
			sevs, _, _, serr := Decide(sealed, in)

			before := h.st.Clone()
			want := stateJSON(t, before)
			evs, _, _, err := Decide(h.st, in)
			steps++

			if got := stateJSON(t, before); got != want {
				t.Fatalf("%s: Decide changed a clone taken before it: it wrote through an entity", where)
			}
			if got := stateJSON(t, sealedBefore); got != sealedWant {
				t.Fatalf("%s: Decide on a sealed state changed a clone taken before it", where)
			}
			replay := before.Clone()
			for i := range evs {
				ev := evs[i]
				if err := replay.Apply(&ev); err != nil {
					t.Fatalf("%s: applying event %d: %v", where, i, err)
				}
			}
			after := stateJSON(t, h.st)
			if stateJSON(t, replay) != after {
				t.Fatalf("%s: the state after Decide is not the state before plus the %d events it returned", where, len(evs))
			}
			if err != nil && after != want {
				t.Fatalf("%s: a refused input (%v) changed the state", where, err)
			}
			if n == 0 {
				continue
			}
			sealedSteps++
			if !reflect.DeepEqual(sevs, evs) || (serr == nil) != (err == nil) {
				t.Fatalf("%s: with %d run(s) sealed Decide returned %d events (%v), hot %d (%v)", where, n, len(sevs), serr, len(evs), err)
			}
			if stateJSON(t, sealed) != after {
				t.Fatalf("%s: with %d run(s) sealed the state after Decide differs from the hot one", where, n)
			}
		}
	}
	t.Logf("%d steps, %d with a sealed run", steps, sealedSteps)
	if sealedSteps < steps/4 {
		t.Fatalf("only %d of %d steps had a sealed run; the sealed half says little", sealedSteps, steps)
	}
}

// sealFinished returns a copy of st with every run that a snapshot would
// seal moved behind a Seal, and how many there are.
func sealFinished(st *State) (*State, int) {
	c := st.Clone()
	n := 0
	for _, id := range sortedKeys(c.Runs) {
		if c.Sealed[id] != nil || !c.Sealable(id) {
			continue
		}
		h := c.SealOf(id)
		sealRun(c, id, func() (*SealedRun, error) { return h, nil })
		n++
	}
	return c, n
}

// stateJSON encodes everything a state says, sealed histories included,
// without changing it.
func stateJSON(t testing.TB, st *State) string {
	t.Helper()
	c := st.Clone()
	if err := c.ThawAll(); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
