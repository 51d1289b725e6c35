package agentproc

import (
	"os"
	"path/filepath"
	"testing"
)

// A path an agent wants to write is inside the workspace, or refused:
// ".." and symlinks that lead out are seen through, and a file that does
// not exist yet is judged by the directory it would be created in.
func TestConfine(t *testing.T) {
	real, _ := filepath.EvalSymlinks(t.TempDir())
	ws := filepath.Join(real, "ws")
	os.MkdirAll(filepath.Join(ws, "sub"), 0o755)
	link := filepath.Join(real, "link") // the workspace as a person named it
	os.Symlink(ws, link)
	os.Symlink(real, filepath.Join(ws, "out")) // a symlink inside that leads out
	for _, tc := range []struct {
		ws, path string
		want     string // "" when refused
	}{
		{ws, ws + "/sub/a.go", ws + "/sub/a.go"},
		{ws, "new/dir/b.txt", ws + "/new/dir/b.txt"},
		{ws, ws, ws},
		{link, link + "/sub/a.go", ws + "/sub/a.go"},
		{ws, link + "/a.txt", ws + "/a.txt"},
		{ws, ws + "/../outside.txt", ""},
		{ws, "../outside.txt", ""},
		{ws, "/etc/passwd", ""},
		{ws, real + "/ws2/a", ""},
		{ws, ws + "/out/x.txt", ""},
		{ws, ws + "/out/ws/x.txt", ws + "/x.txt"},
		{ws, "a\x00b", ""},
		{"", "/anywhere/x", "/anywhere/x"},
	} {
		got, err := Confine(tc.ws, tc.path)
		if (err != nil) != (tc.want == "") || (err == nil && got != tc.want) {
			t.Errorf("Confine(%q, %q) = %q, %v; want %q", tc.ws, tc.path, got, err, tc.want)
		}
	}
}
