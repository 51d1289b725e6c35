package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestE2EWorktreesAndMergeBack: two threads with their own worktrees edit
// the same file at the same time without conflict; merge-back of one into
// the other injects a delta naming the file with its line counts and the
// commands run, and the transfer is in the journal; archiving refuses a
// dirty worktree unless forced.
func TestE2EWorktreesAndMergeBack(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.initRepo(map[string]string{"shared.txt": "hello world\n"})
	a := e.must("thread", "new", "--worktree", "--yes", "--title", "A")
	b := e.must("thread", "new", "--worktree", "--branch", "try-b", "--yes", "--title", "B")
	pa := e.bg("send", a, "#slow=1s replace world with alpha in shared.txt and run `echo tested-a`")
	pb := e.bg("send", b, "#slow=1s replace world with beta in shared.txt and run `echo tested-b`")
	for _, p := range []*bgProc{pa, pb} {
		if r := p.wait(t); r.code != 0 {
			t.Fatalf("send: exit %d %s", r.code, r.err)
		}
	}
	va, vb := e.show(a), e.show(b)
	if va.Worktree == "" || vb.Worktree == "" || va.Worktree == vb.Worktree {
		t.Fatalf("worktrees %q and %q", va.Worktree, vb.Worktree)
	}
	read := func(dir string) string {
		b, _ := os.ReadFile(filepath.Join(dir, "shared.txt"))
		return string(b)
	}
	if read(va.Worktree) != "hello alpha\n" || read(vb.Worktree) != "hello beta\n" || read(e.ws) != "hello world\n" {
		t.Fatalf("shared.txt: A %q, B %q, the user's %q", read(va.Worktree), read(vb.Worktree), read(e.ws))
	}
	if branches := git(t, e.ws, "branch"); !strings.Contains(branches, "try-b") {
		t.Fatalf("branch try-b not made: %q", branches)
	}
	out := e.must("send", a, "list the files", "--merge-back", b)
	if !strings.Contains(out, "context: 3 messages") { // run 1, the delta, this message
		t.Fatalf("the merge-back delta is not in the context: %q", out)
	}
	found := false
	for _, l := range strings.Split(e.must("log", a, "--json"), "\n") {
		var ev struct {
			Type    string `json:"type"`
			Payload struct {
				Transfer *struct{ Kind, Text string } `json:"transfer"`
			} `json:"payload"`
		}
		json.Unmarshal([]byte(l), &ev)
		if tr := ev.Payload.Transfer; tr != nil && tr.Kind == "merge_back" {
			// The file with its line counts from B's run checkpoint.
			found = strings.Contains(tr.Text, "Files changed:\n- shared.txt (modified, +1 -1)\n") &&
				strings.Contains(tr.Text, "echo tested-b") && !strings.Contains(tr.Text, "tested-a")
			if !found {
				t.Fatalf("merge-back delta lacks the file or the command:\n%s", tr.Text)
			}
		}
	}
	if !found {
		t.Fatal("no merge_back transfer in the journal")
	}
	// B's worktree holds uncommitted work: archiving asks for --force.
	if r := e.run("thread", "archive", b); r.code != 1 || !strings.Contains(r.err, "--force") {
		t.Fatalf("archive of a dirty worktree: exit %d %q", r.code, r.err)
	}
	e.must("thread", "archive", b, "--force")
	if _, err := os.Stat(vb.Worktree); !os.IsNotExist(err) {
		t.Fatalf("worktree %s still there after archive --force", vb.Worktree)
	}
}
