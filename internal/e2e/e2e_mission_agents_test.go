package e2e

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/nexus-tui/nexus/core"
)

// TestMissionRaceClaudeCodex: the real Claude Code and Codex CLIs
// (pinned in pinnedCLIs) race on one task against the fake model
// servers. Each writes a.txt in its own worktree with its own write tool
// (Claude's Write, Codex's apply_patch), allowed by --yes; the command
// verifies both; nexus votes; only the winner's commit reaches the
// workspace and the loser's thread is archived. Each agent's turn was
// the compiled task, and that is what reached its model.
func TestMissionRaceClaudeCodex(t *testing.T) {
	needCLI(t, "claude")
	needCLI(t, "codex")
	anthropic := anthropicModel(t)
	openai := startFakeModel(t, responsesAPI)
	codexConfig(t, openai.URL)
	e := backgroundEnv(t, "1m")
	e.gitInit()

	const goal = "write: a.txt"
	r := e.missionRun("mission", "new", goal, "--strategy", "race", "--agents", "claude,codex",
		"--verify", "grep -q 'written by' a.txt", "--yes", "--wait")
	if r.code != 0 || len(strings.Fields(r.out)) == 0 {
		t.Fatalf("race: exit %d\n%s\n%s", r.code, r.out, r.err)
	}
	id := strings.Fields(r.out)[0]
	m := e.mission(id)
	if m.Status != string(core.MissionCompleted) || len(m.Tasks) != 2 {
		t.Fatalf("race: %+v", m)
	}

	// Both passed verification on their first attempt, each in a
	// worktree of its own, with one file changed.
	want := map[string]string{"claude": "written by Claude\n", "codex": "written by Codex\n"}
	for i, tk := range m.Tasks {
		if tk.Agent != []string{"claude", "codex"}[i] || tk.Status != core.TaskPassed || tk.Attempts != 1 ||
			len(tk.Checks) != 1 || !tk.Checks[0].Passed || tk.Commit == "" || tk.Files != 1 {
			t.Fatalf("task %s: %+v", tk.ID, tk)
		}
		if tk.Worktree == "" || tk.Worktree == e.ws || tk.Worktree == m.Tasks[1-i].Worktree {
			t.Fatalf("task %s's worktree %q (the other's %q, the workspace %q)", tk.ID, tk.Worktree, m.Tasks[1-i].Worktree, e.ws)
		}
		if got := readFile(t, filepath.Join(tk.Worktree, "a.txt")); got != want[tk.Agent] {
			t.Fatalf("task %s (%s) wrote a.txt = %q in its worktree", tk.ID, tk.Agent, got)
		}
	}

	// The vote: journaled in the mission, and its winner is the one
	// applied.
	if m.Winner == "" || len(m.Votes) != 1 || m.Votes[0].Voter != "nexus" || m.Votes[0].Task != m.Winner {
		t.Fatalf("winner %q votes %+v", m.Winner, m.Votes)
	}
	voted := false
	for _, s := range e.missionEvents(id) {
		if len(s.Votes) > 0 && s.Votes[0].Voter == "nexus" && s.Votes[0].Task == m.Winner {
			voted = true
		}
	}
	if !voted {
		t.Fatal("no journaled mission event holds the vote")
	}
	var winner, loser core.Task
	for _, tk := range m.Tasks {
		if tk.ID == m.Winner {
			winner = tk
		} else {
			loser = tk
		}
	}

	// Only the winner's commit reached the workspace.
	if got := readFile(t, filepath.Join(e.ws, "a.txt")); got != want[winner.Agent] {
		t.Fatalf("a.txt = %q in the workspace; the winner is task %s (%s)", got, winner.ID, winner.Agent)
	}
	log := e.git("log", "--format=%H %s")
	if strings.Count(log, "nexus mission") != 1 || !strings.Contains(log, winner.Commit) || strings.Contains(log, loser.Commit) ||
		!strings.HasPrefix(log, m.Applied) {
		t.Fatalf("git log of the workspace (winner %s, loser %s, applied %s):\n%s", winner.Commit, loser.Commit, m.Applied, log)
	}
	if st := e.git("status", "--porcelain"); st != "" {
		t.Fatalf("the workspace is not clean after the apply:\n%s", st)
	}

	// The loser's thread is archived, the winner's is not.
	for _, tk := range m.Tasks {
		if v := e.show(tk.Thread); (tk.ID != m.Winner) != (v.Status == core.ThreadArchived) {
			t.Fatalf("task %s (winner %s): thread status %s", tk.ID, m.Winner, v.Status)
		}
	}

	// Each agent's turn was compiled (journaled with its run), and the
	// compiled text is what its model received.
	for _, tk := range m.Tasks {
		v := e.show(tk.Thread)
		if v.Mission != id || v.Task != tk.ID || len(v.Runs) != 1 || v.Runs[0].Status != core.RunCompleted {
			t.Fatalf("task %s's thread: mission %q task %q runs %+v", tk.ID, v.Mission, v.Task, v.Runs)
		}
		text := core.CompileText(v.Runs[0].Context)
		// The project section names the worktree the agent works in, not
		// only the repository (the person's workspace) it came from.
		if v.Runs[0].Text != text || !strings.Contains(text, "Goal: "+goal) || !strings.HasSuffix(text, "Task: "+goal) ||
			!strings.Contains(text, "grep -q 'written by' a.txt") || !strings.Contains(text, "Workspace: "+tk.Worktree+",") {
			t.Fatalf("task %s's run text %q; compiled context:\n%s", tk.ID, v.Runs[0].Text, text)
		}
		model := map[string]*fakeModel{"claude": anthropic, "codex": openai}[tk.Agent]
		seen := false
		for _, s := range model.Texts() {
			if strings.Contains(s, text) {
				seen = true
			}
		}
		if !seen {
			t.Fatalf("%s's model never received task %s's compiled turn:\n%s\nit saw: %q", tk.Agent, tk.ID, text, model.Texts())
		}
	}
}
