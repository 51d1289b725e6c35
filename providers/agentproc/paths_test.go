package agentproc

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The paths an agent names become workspace-relative, slash-separated
// paths, whichever way it names the workspace; anything outside it is
// dropped, so a run's checkpoint never claims a file it cannot restore.
func TestWorkspacePaths(t *testing.T) {
	real, _ := filepath.EvalSymlinks(t.TempDir())
	ws := filepath.Join(real, "ws")
	os.MkdirAll(filepath.Join(ws, "sub"), 0o755)
	os.WriteFile(filepath.Join(ws, "sub", "a.go"), nil, 0o644)
	link := filepath.Join(real, "link") // the workspace as a person named it
	os.Symlink(ws, link)
	os.Symlink(real, filepath.Join(ws, "out")) // a symlink inside that leads out
	for _, tc := range []struct {
		name  string
		ws    string
		paths []string
		want  []string
	}{
		{"absolute inside", ws, []string{ws + "/sub/a.go", ws + "/new.txt"}, []string{"sub/a.go", "new.txt"}},
		{"relative to the agent's directory", ws, []string{"sub/a.go", "./b.txt", "sub/../c.txt"}, []string{"sub/a.go", "b.txt", "c.txt"}},
		{"the real path of a symlinked workspace", link, []string{ws + "/sub/a.go", ws + "/gone/x.txt"}, []string{"sub/a.go", "gone/x.txt"}},
		{"the symlink of a real workspace", ws, []string{link + "/sub/a.go"}, []string{"sub/a.go"}},
		{"outside", ws, []string{"/etc/passwd", "../x", ws + "/../x", real + "/ws2/a", ws, "", "a\x00b"}, nil},
		// Kept as written: it only attributes, and a checkpoint lists
		// the symlink itself, never a file behind it.
		{"a symlink that leads out", ws, []string{ws + "/out/x"}, []string{"out/x"}},
		{"duplicates", ws, []string{"a", ws + "/a", "./a"}, []string{"a"}},
		{"no workspace", "", []string{"/x/a", "a"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := WorkspacePaths(tc.ws, tc.paths...); !slices.Equal(got, tc.want) {
				t.Errorf("WorkspacePaths(%q, %q) = %q, want %q", tc.ws, tc.paths, got, tc.want)
			}
		})
	}
}

// An agent that names thousands of files, or absurdly long ones, costs
// no more than MaxPaths short ones.
func TestWorkspacePathsAreBounded(t *testing.T) {
	ws := t.TempDir()
	var many []string
	for i := range 1000 {
		many = append(many, fmt.Sprintf("f%d", i))
	}
	many = append([]string{strings.Repeat("a/", 3000)}, many...)
	got := WorkspacePaths(ws, many...)
	if len(got) != MaxPaths || got[0] != "f0" {
		t.Fatalf("%d paths starting %q; want %d starting f0", len(got), got[0], MaxPaths)
	}
}
