package host

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/nexus-tui/nexus/store/checkpoint"
)

// A reviewer's diff lists the files, then the patch, cut at a line
// within the bound, saying so.
func TestReviewText(t *testing.T) {
	if got := reviewText(checkpoint.Diff{}, 1<<10); got != "(no change)" {
		t.Fatalf("empty diff: %q", got)
	}
	d := checkpoint.Diff{Files: []checkpoint.FileStat{{Path: "a.txt", Status: "A", Added: 1}, {Path: "logo.png", Status: "M", Binary: true}},
		Added: 1, Patch: "diff --git a/a.txt b/a.txt\n+hello\n"}
	got := reviewText(d, 1<<10)
	if want := "2 files changed, +1 -0 lines:\n  A a.txt (+1 -0)\n  M logo.png (binary)\n\ndiff --git a/a.txt b/a.txt\n+hello\n"; got != want {
		t.Fatalf("got %q\nwant %q", got, want)
	}
	d.Patch = strings.Repeat("+é line of the patch\n", 4000)
	got = reviewText(d, 32<<10)
	if len(got) > 32<<10 || !utf8.ValidString(got) || !strings.HasSuffix(got, "bytes; the rest is not shown]\n") ||
		!strings.Contains(got, "line of the patch\n\n[the diff was cut at 32 KiB") {
		t.Fatalf("cut diff: %d bytes, ends %q", len(got), got[max(0, len(got)-200):])
	}
}
