package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/core/api"
)

// missionRepo makes the crash workload's missions' repository beside ws
// (once) and returns it with its first commit. The commit's author, date
// and tree are fixed, so every run of a seed (crashed or the uncrashed
// reference) names the same base.
func missionRepo(ws string) (string, string) {
	dir := filepath.Join(filepath.Dir(ws), "mrepo")
	git := func(args ...string) string {
		c := exec.Command("git", args...)
		c.Dir = dir
		c.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t",
			"GIT_COMMITTER_EMAIL=t@example.com", "GIT_AUTHOR_DATE=2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2026-01-01T00:00:00Z")
		out, err := c.CombinedOutput()
		if err != nil {
			panic(fmt.Sprintf("git %v in %s: %v\n%s", args, dir, err, out))
		}
		return strings.TrimSpace(string(out))
	}
	if _, err := os.Stat(filepath.Join(dir, ".git")); err != nil {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			panic(err)
		}
		git("init", "-q", "-b", "main")
		git("commit", "-q", "--allow-empty", "-m", "missions")
	}
	return dir, git("rev-list", "--max-parents=0", "HEAD")
}

// settleMission waits until a mission has ended, resuming its threads'
// runs a crash interrupted (the host issues its own unfinished steps
// again) and answering what they ask.
func (r *runner) settleMission(ctx context.Context, c *api.Client, id string) bool {
	if r.vc != c {
		if err := r.follow(ctx, c); err != nil {
			return false
		}
	}
	v := r.v
	for v.st.Seq < r.seen {
		if !v.next(20 * time.Millisecond) {
			return false
		}
	}
	resumed := map[string]bool{}
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); {
		m := v.st.Missions[id]
		if m != nil && m.Done() {
			return true
		}
		if m != nil {
			for _, th := range missionThreads(m) {
				for _, run := range v.st.RunsOf(th) {
					if run.Status == core.RunInterrupted && run.Recoverable && !resumed[run.ID] {
						resumed[run.ID] = true
						if _, err := c.Submit(ctx, core.Command{ID: core.NewID("resume"), Kind: core.CmdRunResume, Thread: th}); err != nil {
							return false
						}
					}
				}
			}
		}
		if !v.next(20 * time.Millisecond) {
			return false
		}
	}
	r.t.Fatalf("mission %s did not end in 2 minutes: %+v", id, v.st.Missions[id])
	return false
}

func missionThreads(m *core.Mission) []string {
	out := []string{}
	if m.PlanThread != "" {
		out = append(out, m.PlanThread)
	}
	for _, tk := range m.Tasks {
		if tk.Thread != "" {
			out = append(out, tk.Thread)
		}
	}
	return out
}

// checkMissions compares the missions of a crashed run with the
// uncrashed reference's, and their repository: same statuses and
// winners, the same files, and each task's commit made once.
func checkMissions(seed int64, got, want *core.State, ws, refWS string) error {
	for id, wm := range want.Missions {
		gm := got.Missions[id]
		if gm == nil {
			return fmt.Errorf("mission %s is missing", id)
		}
		if gm.Status != wm.Status || gm.Winner != wm.Winner || len(gm.Tasks) != len(wm.Tasks) {
			return fmt.Errorf("mission %s is %s (winner %q, %d tasks), uncrashed %s (winner %q, %d tasks): %s",
				id, gm.Status, gm.Winner, len(gm.Tasks), wm.Status, wm.Winner, len(wm.Tasks), gm.Result)
		}
	}
	repo, _ := missionRepo(ws)
	refRepo, _ := missionRepo(refWS)
	entries, _ := os.ReadDir(refRepo)
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		wb, _ := os.ReadFile(filepath.Join(refRepo, e.Name()))
		gb, err := os.ReadFile(filepath.Join(repo, e.Name()))
		if err != nil || string(gb) != string(wb) {
			return fmt.Errorf("missions' %s = %q, uncrashed %q (%v)", e.Name(), gb, wb, err)
		}
	}
	out, err := exec.Command("git", "-C", repo, "log", "--all", "--format=%s").Output()
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(line, "nexus mission ") {
			if seen[line] {
				return fmt.Errorf("commit %q made twice", line)
			}
			seen[line] = true
		}
	}
	return nil
}
