package store

import (
	"bytes"
	"context"
	"errors"
	"github.com/nexus-tui/nexus/internal/journalgen"
	"reflect"
	"strings"
	"testing"

	"github.com/nexus-tui/nexus/core"
)

func exportT(t *testing.T, s *Store) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := s.Export(context.Background(), &buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestExportImportRoundTrip(t *testing.T) {
	src := openT(t, t.TempDir())
	appendAll(t, src, journalgen.New(41).Commits(3000), 25)
	archive := exportT(t, src)
	if !strings.HasPrefix(string(archive), ArchiveHeader) {
		t.Fatalf("archive starts %q", archive[:30])
	}

	dst := openT(t, t.TempDir())
	n, err := dst.Import(context.Background(), bytes.NewReader(archive))
	if err != nil || n != 3000 || dst.Last() != 3000 {
		t.Fatalf("Import = %d, %v; Last %d", n, err, dst.Last())
	}
	want, err := src.Verify(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got, err := dst.Verify(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !want.OK || !reflect.DeepEqual(got, want) {
		t.Fatalf("Verify after import = %+v, want %+v", got, want)
	}
	a, _ := EncodeState(stateAt(t, src, 3000))
	b, _ := EncodeState(stateAt(t, dst, 3000))
	if !bytes.Equal(a, b) {
		t.Fatal("imported journal replays to a different state")
	}
	if again := exportT(t, dst); !bytes.Equal(again, archive) {
		t.Fatal("exporting the imported journal gives a different archive")
	}
	// The imported journal takes appends where the archive ended.
	more := journalgen.Flatten(journalgen.New(41).Commits(3001))[3000:]
	if err := dst.Append(context.Background(), []core.Commit{{Events: more}}); err != nil {
		t.Fatal(err)
	}

	// Non-empty journals refuse, and are left as they were.
	if _, err := src.Import(context.Background(), bytes.NewReader(archive)); !errors.Is(err, ErrNotEmpty) {
		t.Fatalf("Import into a non-empty journal = %v, want ErrNotEmpty", err)
	}
	if src.Last() != 3000 {
		t.Fatalf("refused import changed the journal: last %d", src.Last())
	}
}

func TestImportRefusesBadArchivesAndWritesNothing(t *testing.T) {
	src := openT(t, t.TempDir())
	appendAll(t, src, journalgen.New(42).Commits(200), 10)
	good := exportT(t, src)

	const endFrame = 4 + 1 + 2 + 2 + hashSize // length, array(2), uint8 200, bin8 header, hash
	flipAt := func(off int) []byte {
		b := append([]byte(nil), good...)
		b[off] ^= 1
		return b
	}
	cases := map[string][]byte{
		"empty":           nil,
		"wrong header":    append([]byte("nexus-journal-archive 9\n"), good[len(ArchiveHeader):]...),
		"flipped byte":    flipAt(len(good) / 2),
		"truncated":       good[:len(good)-10],
		"no end frame":    good[:len(good)-endFrame],
		"trailing data":   append(append([]byte(nil), good...), 0),
		"huge frame":      append([]byte(ArchiveHeader), 0xff, 0xff, 0xff, 0xff),
		"missing events":  append([]byte(ArchiveHeader), good[len(good)-endFrame:]...),
		"flipped in last": flipAt(len(good) - 40),
	}
	for name, b := range cases {
		dst := openT(t, t.TempDir())
		n, err := dst.Import(context.Background(), bytes.NewReader(b))
		if err == nil {
			t.Errorf("%s: imported %d events", name, n)
			continue
		}
		if !strings.HasPrefix(err.Error(), "store: ") {
			t.Errorf("%s: error %q lacks the store prefix", name, err)
		}
		if dst.Last() != 0 || len(readAll(t, dst, 1)) != 0 {
			t.Errorf("%s: a failed import left %d events", name, dst.Last())
		}
		if rep, err := dst.Verify(context.Background()); err != nil || !rep.OK || rep.LastSeq != 0 {
			t.Errorf("%s: journal after failed import: %+v %v", name, rep, err)
		}
	}
}

// Export refuses what Import would refuse: an event too big for an
// archive frame (a reply journaled whole before replies were bounded)
// fails the export with a line naming it, instead of an archive that can
// never be imported.
func TestExportRefusesWhatImportRefuses(t *testing.T) {
	s := openT(t, t.TempDir())
	evs := journalgen.Flatten(journalgen.New(7).Commits(3))
	big := evs[2]
	big.Payload.Text = strings.Repeat("x", maxFrame+1)
	big.Type = core.EvNodeText
	if err := s.Append(context.Background(), []core.Commit{{Events: evs[:2]}, {Events: []core.Event{big}}}); err != nil {
		t.Fatal(err)
	}
	err := s.Export(context.Background(), &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "event 3 is") || !strings.Contains(err.Error(), "Import would refuse") {
		t.Fatalf("Export of an oversized event = %v; want a refusal naming event 3", err)
	}
}
