package workers

import (
	"encoding/base64"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/zeebo/blake3"
)

func TestFileActionsRoundTrip(t *testing.T) {
	ws := tempWorkspace(t)
	p := newTestPool(t, ws)
	content := "hello\nworld\n"

	var mu sync.Mutex
	var cps []Checkpoint
	res := mustExec(t, p, Step{N: 1, Action: ActionWriteFile, Args: Args{Path: "notes/a.txt", Content: content}},
		func(c Checkpoint) { mu.Lock(); cps = append(cps, c); mu.Unlock() })
	sum := blake3.Sum256([]byte(content))
	want := hex.EncodeToString(sum[:])
	if res.Status != StatusOK || res.Blake3 != want || res.Path != "notes/a.txt" {
		t.Fatalf("write_file = %+v, want ok with blake3 %s of notes/a.txt", res, want)
	}
	if got, _ := os.ReadFile(filepath.Join(ws, "notes/a.txt")); string(got) != content {
		t.Fatalf("file holds %q, want %q", got, content)
	}
	mu.Lock()
	if len(cps) != 1 || cps[0].Artifacts.Blake3 != want || cps[0].Artifacts.Path != "notes/a.txt" {
		t.Errorf("write checkpoints = %+v, want one with path and blake3", cps)
	}
	mu.Unlock()
	if tmp, _ := filepath.Glob(filepath.Join(ws, "notes", ".*nexus-tmp*")); len(tmp) > 0 {
		t.Errorf("temp files left behind: %v", tmp)
	}

	res = mustExec(t, p, Step{N: 2, Action: ActionReadFile, Args: Args{Path: "notes/a.txt"}}, nil)
	if res.Status != StatusOK || res.Output != content || res.Metrics.Bytes != int64(len(content)) {
		t.Fatalf("read_file = %+v, want the content", res)
	}

	res = mustExec(t, p, Step{N: 3, Action: ActionEditFile, Args: Args{Path: "notes/a.txt", Old: "world", New: "there"}}, nil)
	sum = blake3.Sum256([]byte("hello\nthere\n"))
	if res.Status != StatusOK || res.Blake3 != hex.EncodeToString(sum[:]) || !strings.Contains(res.Output, "line 2") {
		t.Fatalf("edit_file = %+v", res)
	}
	if got, _ := os.ReadFile(filepath.Join(ws, "notes/a.txt")); string(got) != "hello\nthere\n" {
		t.Fatalf("after edit the file holds %q", got)
	}

	writeFile(t, filepath.Join(ws, "b.txt"), "x")
	writeFile(t, filepath.Join(ws, ".hidden"), "x")
	res = mustExec(t, p, Step{N: 4, Action: ActionListDir}, nil)
	if res.Status != StatusOK || res.Output != ".hidden\nb.txt\nnotes/" {
		t.Fatalf("list_dir = %q (%s), want sorted entries with dirs marked", res.Output, res.Error)
	}

	res = mustExec(t, p, Step{N: 5, Action: ActionSearch, Args: Args{Pattern: "th.re"}}, nil)
	if res.Status != StatusOK || res.Output != "notes/a.txt:2:there" {
		t.Fatalf("search = %q (%s)", res.Output, res.Error)
	}

	bin := []byte{0xff, 0xfe, 0, 1, 2}
	if err := os.WriteFile(filepath.Join(ws, "bin"), bin, 0o644); err != nil {
		t.Fatal(err)
	}
	res = mustExec(t, p, Step{N: 6, Action: ActionReadFile, Args: Args{Path: "bin"}}, nil)
	if got, _ := base64.StdEncoding.DecodeString(res.Output); res.Encoding != "base64" || string(got) != string(bin) {
		t.Fatalf("read_file of binary = %+v, want base64 of the bytes", res)
	}
}

func TestEditFileRefusesAmbiguousOrMissing(t *testing.T) {
	ws := tempWorkspace(t)
	p := newTestPool(t, ws)
	orig := "foo\nbar\nfoo\n"
	writeFile(t, filepath.Join(ws, "x.go"), orig)
	for _, tc := range []struct {
		old, want string
	}{
		{"baz", "old text not found in x.go"},
		{"foo", "old text found 2 times in x.go (lines 1, 3)"},
		{"", "needs the exact text"},
	} {
		res := mustExec(t, p, Step{N: 1, Action: ActionEditFile, Args: Args{Path: "x.go", Old: tc.old, New: "q"}}, nil)
		if res.Status != StatusError || !strings.Contains(res.Error, tc.want) {
			t.Errorf("edit old=%q: %s %q, want error containing %q", tc.old, res.Status, res.Error, tc.want)
		}
	}
	if got, _ := os.ReadFile(filepath.Join(ws, "x.go")); string(got) != orig {
		t.Fatalf("a refused edit changed the file: %q", got)
	}
}

func TestReadFileErrors(t *testing.T) {
	ws := tempWorkspace(t)
	p := newTestPool(t, ws)
	f, err := os.Create(filepath.Join(ws, "big"))
	if err != nil {
		t.Fatal(err)
	}
	f.Truncate(9 << 20) // sparse: cheap
	f.Close()
	os.Mkdir(filepath.Join(ws, "dir"), 0o755)
	if err := syscall.Mkfifo(filepath.Join(ws, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, want string }{
		{"big", "over the 8388608 byte read limit"},
		{"missing.txt", "missing.txt does not exist"},
		{"dir", "dir is a directory"},
		{"", "path is empty"},
		{"fifo", "fifo is not a regular file"},
	} {
		res := mustExec(t, p, Step{N: 1, Action: ActionReadFile, Args: Args{Path: tc.path}}, nil)
		if res.Status != StatusError || !strings.Contains(res.Error, tc.want) {
			t.Errorf("read_file %q: %s %q, want error containing %q", tc.path, res.Status, res.Error, tc.want)
		}
	}
}

func TestWriteFileKeepsModeAndReplacesSymlinkTarget(t *testing.T) {
	ws := tempWorkspace(t)
	p := newTestPool(t, ws)
	writeFile(t, filepath.Join(ws, "run.sh"), "old")
	os.Chmod(filepath.Join(ws, "run.sh"), 0o755)
	os.Symlink("run.sh", filepath.Join(ws, "link.sh"))
	res := mustExec(t, p, Step{N: 1, Action: ActionWriteFile, Args: Args{Path: "link.sh", Content: "new"}}, nil)
	if res.Status != StatusOK || res.Path != "run.sh" {
		t.Fatalf("write through an inside symlink = %+v, want ok on run.sh", res)
	}
	st, err := os.Stat(filepath.Join(ws, "run.sh"))
	if err != nil || st.Mode().Perm() != 0o755 {
		t.Fatalf("mode after write = %v (%v), want 0755 kept", st.Mode(), err)
	}
	if fi, _ := os.Lstat(filepath.Join(ws, "link.sh")); fi.Mode()&os.ModeSymlink == 0 {
		t.Fatal("the symlink was replaced by a file")
	}
}
