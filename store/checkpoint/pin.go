package checkpoint

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// A workspace keeps the repository nexus first found for it. Once a
// workspace inside a git repository is resolved, its answer (the
// repository, top level, prefix, object format and paths) is pinned in a
// file under the state dir; later resolutions read the pin and run git
// with that repository explicitly, so a .git an agent creates in the
// workspace afterwards (a new repository of its own, with its own hooks
// and configuration) is never adopted and never receives checkpoints. A
// workspace without a repository gets a shadow repository, which is its
// pin. A pinned repository that is gone is an error naming it.

// pinFile is where a workspace path's pin lives.
func (m *Manager) pinFile(path string) string {
	sum := sha256.Sum256([]byte(path))
	return filepath.Join(m.stateDir, "checkpoints", "pins", hex.EncodeToString(sum[:16]))
}

// pinLines is how many lines a pin holds: the workspace path, then the
// seven values of find's git rev-parse.
const pinLines = 8

// readPin returns the pinned rev-parse values of a workspace, or nil.
func (m *Manager) readPin(path string) ([]string, error) {
	b, err := os.ReadFile(m.pinFile(path))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("checkpoint: cannot read the repository pin of %s: %w; check the state dir", path, err)
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if len(lines) != pinLines || lines[0] != path {
		return nil, fmt.Errorf("checkpoint: the repository pin of %s (%s) is damaged; remove it to resolve the workspace again", path, m.pinFile(path))
	}
	if _, err := os.Stat(filepath.Join(lines[3], "HEAD")); err != nil {
		return nil, fmt.Errorf("checkpoint: the repository %s that workspace %s started with is gone; restore it, or remove %s to let nexus use the repository there now",
			lines[3], path, m.pinFile(path))
	}
	return lines[1:], nil
}

// writePin records a workspace's rev-parse values durably.
func (m *Manager) writePin(path string, values []string) error {
	file := m.pinFile(path)
	if err := mkdirDurable(filepath.Dir(file)); err != nil {
		return fmt.Errorf("checkpoint: cannot pin the repository of %s: %w; check the state dir", path, err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(file), ".pin-")
	if err != nil {
		return fmt.Errorf("checkpoint: cannot pin the repository of %s: %w; check the state dir", path, err)
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.WriteString(path + "\n" + strings.Join(values, "\n") + "\n")
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), file)
	}
	if err == nil {
		err = syncDir(filepath.Dir(file))
	}
	if err != nil {
		return fmt.Errorf("checkpoint: cannot pin the repository of %s: %w; check the state dir", path, err)
	}
	return nil
}
