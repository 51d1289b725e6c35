package host

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A host refuses a state dir whose checkpoints dir is a symlink: the
// checkpoints, and the git processes run on them, would live elsewhere.
func TestStartRefusesSymlinkedCheckpoints(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(t.TempDir(), filepath.Join(dir, "checkpoints")); err != nil {
		t.Fatal(err)
	}
	h, err := Start(dir, time.Second, nil, false)
	if err == nil {
		h.Close()
		t.Fatal("a host started on a symlinked checkpoints dir")
	}
	if !strings.Contains(err.Error(), "is a symlink") {
		t.Fatalf("error %q does not say what is wrong", err)
	}
}
