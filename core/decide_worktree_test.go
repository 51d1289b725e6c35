package core

import "testing"

// TestWorktreeBranchRecorded: a thread or fork made with a worktree
// records the branch the edge made for it; without a worktree a branch
// means nothing and is not kept.
func TestWorktreeBranchRecorded(t *testing.T) {
	st := NewState()
	decide := func(c Command) {
		t.Helper()
		c.At = int64(len(st.Threads)+1) * 1000
		if _, _, rec, err := Decide(st, Input{Command: &c}); err != nil || rec.Reject != nil {
			t.Fatalf("%s: %v %+v", c.Kind, err, rec)
		}
	}
	decide(Command{ID: "c1", Kind: CmdThreadCreate, NewThread: "a", Provider: "builtin", Workspace: "/wt/a",
		Worktree: "/wt/a", Repo: "/repo", Branch: "nexus/a"})
	decide(Command{ID: "c2", Kind: CmdThreadCreate, NewThread: "b", Provider: "builtin", Workspace: "/repo", Branch: "ignored"})
	decide(Command{ID: "c3", Kind: CmdThreadFork, Thread: "a", NewThread: "f", Worktree: "/wt/f", Repo: "/repo", Branch: "nexus/f"})
	for id, want := range map[string]string{"a": "nexus/a", "b": "", "f": "nexus/f"} {
		if got := st.Threads[id].Branch; got != want {
			t.Errorf("thread %s branch %q, want %q", id, got, want)
		}
	}
	if f := st.Threads["f"]; f.Workspace != "/wt/f" || f.Repo != "/repo" {
		t.Errorf("fork %+v: want workspace /wt/f in repo /repo", f)
	}
	bad := Command{ID: "c4", Kind: CmdThreadCreate, NewThread: "x", Provider: "builtin", Branch: "\xff"}
	if err := bad.Validate(); err == nil {
		t.Error("a branch of invalid UTF-8 was accepted")
	}
}
