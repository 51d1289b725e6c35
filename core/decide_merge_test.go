package core

import (
	"fmt"
	"strings"
	"testing"
)

// runWith drives one run of thread th to completion through the harness:
// the baseline first when it is the thread's first run, an optional write
// step, then the run's checkpoint observation with the given files.
func (h *harness) runWith(t *testing.T, th string, n int, write, files string) {
	t.Helper()
	h.must(t, fmt.Sprintf(`cmd kind=message.send thread=%s text="run %d"`, th, n))
	if n == 1 {
		h.must(t, fmt.Sprintf("obs kind=checkpoint thread=%s key=base status=ready hash=c0", th))
	}
	run, att := fmt.Sprintf("%s/%d", th, n), fmt.Sprintf("%s/%d/a1", th, n)
	if write != "" {
		h.must(t, fmt.Sprintf(`obs kind=step.started thread=%s run=%s attempt=%s key=w%d action=write_file class=idempotent title="write_file %s"`, th, run, att, n, write))
		h.must(t, fmt.Sprintf("obs kind=step.done thread=%s run=%s attempt=%s key=w%d status=completed", th, run, att, n))
	}
	h.must(t, fmt.Sprintf("obs kind=turn.ended thread=%s run=%s attempt=%s status=completed", th, run, att))
	h.must(t, fmt.Sprintf("obs kind=checkpoint thread=%s key=run%d status=ready hash=c%d files=%s", th, n, n, files))
}

func (h *harness) must(t *testing.T, line string) {
	t.Helper()
	if out := h.do(t, line); strings.Contains(out, "refused") || strings.Contains(out, "rejected") {
		t.Fatalf("%s:\n%s", line, out)
	}
}

// mergeText merges thread from into a new thread and returns the text of
// the merge_back transfer.
func (h *harness) mergeText(t *testing.T, from string) string {
	t.Helper()
	h.must(t, "cmd kind=thread.create new=into provider=builtin caps=all")
	h.must(t, `cmd kind=message.send thread=into text="take it" mergeback=`+from)
	tr := h.st.Transfers["into/merge1"]
	if tr == nil {
		t.Fatal("no merge_back transfer")
	}
	return tr.Text
}

// TestMergeBackFiles: "Files changed" lists each file once with its status
// and line counts summed over the fork's runs, sorted; a file the fork
// added stays added; a run whose checkpoint lists no file contributes its
// write steps; a thread without checkpoints lists write steps as before.
func TestMergeBackFiles(t *testing.T) {
	h := &harness{st: NewState(), clock: 1000}
	h.must(t, "cmd kind=thread.create new=f provider=builtin caps=all workspace=/ws")
	h.runWith(t, "f", 1, "b.txt", "b.txt:A:10:0,a.txt:M:3:1,tmp.txt:A:2:0")
	h.runWith(t, "f", 2, "", "b.txt:M:2:1,tmp.txt:D:0:2,logo.png:A:0:0:bin,old.txt:D:0:4")
	h.runWith(t, "f", 3, "notes.txt", "") // stats unknown: its write step counts
	got := h.mergeText(t, "f")
	want := `Files changed:
- a.txt (modified, +3 -1)
- b.txt (added, +12 -1)
- logo.png (added, binary)
- notes.txt (write_file)
- old.txt (deleted, -4)
- tmp.txt (added, then deleted, +2 -2)
`
	if !strings.HasSuffix(got, want) { // the last section: no command ran
		t.Fatalf("merge-back text:\n%s\nwant it to contain:\n%s", got, want)
	}

	h = &harness{st: NewState(), clock: 1000}
	h.must(t, "cmd kind=thread.create new=f provider=builtin caps=all")
	for n, path := range []string{"a.txt", "a.txt"} {
		r, a := fmt.Sprintf("f/%d", n+1), fmt.Sprintf("f/%d/a1", n+1)
		h.must(t, fmt.Sprintf(`cmd kind=message.send thread=f text="run %d"`, n+1))
		h.must(t, fmt.Sprintf(`obs kind=step.started thread=f run=%s attempt=%s key=w%d action=write_file class=idempotent title="write_file %s"`, r, a, n, path))
		h.must(t, fmt.Sprintf("obs kind=step.done thread=f run=%s attempt=%s key=w%d status=completed", r, a, n))
		h.must(t, fmt.Sprintf("obs kind=turn.ended thread=f run=%s attempt=%s status=completed", r, a))
	}
	if got := h.mergeText(t, "f"); !strings.Contains(got, "Files changed:\n- a.txt (write_file, write_file)\n") {
		t.Fatalf("merge-back without checkpoints:\n%s", got)
	}
}

// TestCheckpointFilesCapped: a checkpoint keeps the first
// MaxCheckpointFiles files by path and counts the rest in MoreFiles, and
// merge-back says how many it could not list.
func TestCheckpointFilesCapped(t *testing.T) {
	h := &harness{st: NewState(), clock: 1000}
	h.must(t, "cmd kind=thread.create new=f provider=builtin caps=all workspace=/ws")
	var files []string
	for i := MaxCheckpointFiles + 4; i >= 0; i-- {
		files = append(files, fmt.Sprintf("f%04d.txt:A:1:0", i))
	}
	h.runWith(t, "f", 1, "", strings.Join(files, ","))
	cp := h.st.Checkpoints[CheckpointID("f", RunScope(1))]
	if len(cp.Files) != MaxCheckpointFiles || cp.MoreFiles != 5 || cp.Files[0].Path != "f0000.txt" ||
		cp.Files[MaxCheckpointFiles-1].Path != fmt.Sprintf("f%04d.txt", MaxCheckpointFiles-1) {
		t.Fatalf("capped checkpoint: %d files from %s, more %d", len(cp.Files), cp.Files[0].Path, cp.MoreFiles)
	}
	if got := h.mergeText(t, "f"); !strings.Contains(got, "- f0199.txt (added, +1)\n- and 5 more file(s) the checkpoints do not list\n") {
		t.Fatalf("merge-back of a capped checkpoint:\n%s", got)
	}
}
