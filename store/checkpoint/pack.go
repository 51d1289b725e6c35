package checkpoint

import (
	"context"
	"os"
	"path/filepath"
)

// DefaultPackAfter is Options.PackAfter's default: about as many loose
// objects as git's own gc.auto lets pile up before it packs.
const DefaultPackAfter = 4096

// maybePack packs a shadow repository's loose objects once there are
// about opts.PackAfter of them, so a long-lived non-git workspace does not
// leave tens of thousands of small files under the state dir. It runs
// after a capture, under the workspace's lock, and never touches a user's
// own repository (their git gc does that). The order keeps every object
// reachable through a power cut: `git repack` writes the pack (fsynced,
// core.fsync=all), the pack directory is fsynced, and only then does
// `git prune-packed` delete the loose copies. Refs stay loose files (our
// own ref writes take no git lock, so pack-refs could lose one). A failure
// only leaves the objects loose.
func (m *Manager) maybePack(ctx context.Context, w *ws) {
	if !w.Shadow || looseObjects(w.objects, m.opts.PackAfter) < m.opts.PackAfter {
		return
	}
	c := w.cmd("pack", "", "-c", "core.fsync=all", "-c", "core.fsyncMethod=fsync", "repack", "-q")
	if _, err := m.run(ctx, c); err != nil {
		return
	}
	if syncDir(filepath.Join(w.objects, "pack")) != nil {
		return
	}
	p := w.cmd("pack", "", "prune-packed", "-q")
	_, _ = m.run(ctx, p)
}

// looseObjects estimates the loose objects in an objects directory as git
// does (the entries of objects/17, times 256) when the threshold is large
// enough for that sample to mean something, else counts them all.
func looseObjects(objects string, threshold int) int {
	if threshold >= 256*8 {
		ents, _ := os.ReadDir(filepath.Join(objects, "17"))
		return len(ents) * 256
	}
	n := 0
	for i := range 256 {
		ents, _ := os.ReadDir(filepath.Join(objects, hex2(i)))
		n += len(ents)
	}
	return n
}

func hex2(i int) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[i>>4], digits[i&15]})
}
