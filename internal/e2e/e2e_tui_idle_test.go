package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestTUIIdleWritesNothing is the frames-on-demand acceptance: after the
// last event the UI writes nothing to its terminal (what tmux's
// pipe-pane captures) for 2 s, nor for 10 s, and a key pressed after
// those idle seconds is drawn at once.
func TestTUIIdleWritesNothing(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tt := e.startTUI(t)
	tt.waitFor("No threads yet")
	file := filepath.Join(t.TempDir(), "written")
	tt.tmux("pipe-pane", "-O", "-t", "main", "cat >> "+shellQuote(file))
	written := func() string {
		b, _ := os.ReadFile(file)
		return string(b)
	}
	tt.text("still here")
	tt.waitFor("still here")
	// The last event: one key whose frame is only its cell. Once it is
	// in the capture, every frame before it is too.
	tt.text("Q")
	tt.waitFor("still hereQ")
	eventually(t, "the last key's frame in what the UI wrote", func() bool { return strings.Contains(written(), "Q") })
	last := len(written())
	for _, idle := range []time.Duration{2 * time.Second, 8 * time.Second} {
		time.Sleep(idle)
		if out := written(); len(out) != last {
			t.Fatalf("the idle UI wrote %d bytes after its last event: %q", len(out)-last, out[last:])
		}
	}
	tt.text("!")
	tt.waitFor("still hereQ!")
	eventually(t, "the frame of the key after 10 idle seconds in what the UI wrote", func() bool {
		return strings.Contains(written()[last:], "!")
	})
	tt.quitIdle()
}
