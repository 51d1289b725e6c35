package workers

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// An agent allowed to write files must not gain command execution: git
// runs what a repository's config, hooks and attributes name, and nexus
// runs git on the workspace. So no write step reaches a .git directory,
// by any spelling or link, and no step reads or writes nexus's state dir
// even when it lies inside the workspace. Refusals are failed steps the
// agent sees; the files stay as they were.
func TestWorkerRefusesGitAndStateDirWrites(t *testing.T) {
	ws := tempWorkspace(t)
	state := filepath.Join(ws, ".local", "state", "nexus")
	os.MkdirAll(filepath.Join(ws, ".git", "hooks"), 0o755)
	os.MkdirAll(filepath.Join(ws, "sub"), 0o755)
	os.MkdirAll(state, 0o700)
	writeFile(t, filepath.Join(ws, ".git", "config"), "[core]\n")
	writeFile(t, filepath.Join(state, "journal.db"), "the journal")
	os.Symlink(".git", filepath.Join(ws, "gitlink"))
	os.Symlink(".local/state/nexus", filepath.Join(ws, "statelink"))

	key, _ := NewKey()
	argv := append(workerCommand(), "--deny", state)
	w, err := startProc(argv, append(os.Environ(), workerVars...), ws, key)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.stop(2 * time.Second) })
	later := time.Now().Add(time.Minute)
	step := 0
	do := func(action string, a Args) Result {
		step++
		tok := Sign(key, Grant{Task: "t1", Step: step, Action: action, Target: TargetOf(action, a), Nonce: NewNonce(), Expiry: later})
		return w.send(t, Execute{TaskID: "t1", Step: step, Action: action, Args: a, Capability: tok})
	}
	planted := "[core]\n\tfsmonitor = touch pwned\n"
	for _, tc := range []struct {
		name, action string
		args         Args
		want         string
	}{
		{"repository config", ActionWriteFile, Args{Path: ".git/config", Content: planted}, "inside a .git directory"},
		{"a hook", ActionWriteFile, Args{Path: ".git/hooks/pre-commit", Content: "#!/bin/sh\ntouch pwned\n"}, "inside a .git directory"},
		{"edit of the config", ActionEditFile, Args{Path: ".git/config", Old: "[core]", New: planted}, "inside a .git directory"},
		{"another case", ActionWriteFile, Args{Path: ".GIT/config", Content: planted}, "inside a .git directory"},
		{"through ..", ActionWriteFile, Args{Path: "sub/../.git/config", Content: planted}, "inside a .git directory"},
		{"absolute", ActionWriteFile, Args{Path: filepath.Join(ws, ".git/config"), Content: planted}, "inside a .git directory"},
		{"through a symlink", ActionWriteFile, Args{Path: "gitlink/config", Content: planted}, "inside a .git directory"},
		{"a new repository", ActionWriteFile, Args{Path: "sub/.git/config", Content: planted}, "inside a .git directory"},
		{"read the journal", ActionReadFile, Args{Path: ".local/state/nexus/journal.db"}, "inside nexus's state dir"},
		{"write the journal", ActionWriteFile, Args{Path: "statelink/journal.db", Content: "x"}, "inside nexus's state dir"},
		{"list the state dir", ActionListDir, Args{Path: ".local/state/nexus"}, "inside nexus's state dir"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := do(tc.action, tc.args)
			if res.Status != StatusRefused || !strings.Contains(res.Error, tc.want) {
				t.Fatalf("got %s %q, want refused containing %q", res.Status, res.Error, tc.want)
			}
		})
	}
	if b, _ := os.ReadFile(filepath.Join(ws, ".git", "config")); string(b) != "[core]\n" {
		t.Fatalf("the repository config changed: %q", b)
	}
	for _, p := range []string{".git/hooks/pre-commit", "sub/.git", ".GIT"} {
		if _, err := os.Lstat(filepath.Join(ws, p)); err == nil {
			t.Fatalf("a refused write created %s", p)
		}
	}
	// A search of the whole workspace does not read the state dir.
	if res := do(ActionSearch, Args{Pattern: "the journal"}); res.Status != StatusOK || strings.Contains(res.Output, "journal.db") {
		t.Fatalf("search of the workspace: %s %q %q; want no match in the state dir", res.Status, res.Output, res.Error)
	}
	// Ordinary writes still work, including a file named like .git.
	if res := do(ActionWriteFile, Args{Path: "sub/.gitignore", Content: "x\n"}); res.Status != StatusOK {
		t.Fatalf("write of sub/.gitignore: %s %q", res.Status, res.Error)
	}
}
