package e2e

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nexus-tui/nexus/core"
)

// kill -9 at every mission step (before it runs, and after it ran but
// before the kernel heard of it) and `nexus mission resume` finishes the
// mission: no step journaled twice, no verification re-run whose result
// is journaled, no commit or merge made twice, the files right.
func TestMissionCrash(t *testing.T) {
	t.Parallel()
	bin := failpointBinary(t)
	for _, point := range []string{"mission.worktree:1", "mission.worktree:3", "mission.commit:1", "mission.commit:2", "mission.merge:1",
		"mission.merge:2", "mission.verify:1", "mission.apply:1", "mission.done:2", "mission.done:3", "mission.done:4", "mission.done:5", "mission.done:7", "mission.done:8"} {
		t.Run(point, func(t *testing.T) {
			t.Parallel()
			e := backgroundEnv(t, "1m")
			e.gitInit()
			crashDuring(t, bin, e, point, "mission", "new", "write hello to a.txt and write world to b.txt",
				"--verify", "test -f a.txt -a -f b.txt", "--yes")
			list := e.must("mission", "list", "--json")
			var ms []struct{ ID string }
			if err := json.Unmarshal([]byte(list), &ms); err != nil || len(ms) != 1 {
				t.Fatalf("mission list after the crash: %s (%v)", list, err)
			}
			id := ms[0].ID
			r := e.missionRun("mission", "resume", id, "--wait")
			if r.code != 0 {
				t.Fatalf("resume: exit %d\n%s\n%s", r.code, r.out, r.err)
			}
			m := e.mission(id)
			if m.Status != string(core.MissionCompleted) || len(m.Checks) != 1 {
				t.Fatalf("after the crash at %s: %+v", point, m)
			}
			if readFile(t, filepath.Join(e.ws, "a.txt")) != "hello\n" || readFile(t, filepath.Join(e.ws, "b.txt")) != "world\n" {
				t.Fatal("the workspace lacks the mission's files")
			}
			log := e.git("log", "--format=%s")
			for _, tk := range []string{"task 1:", "task 2:"} {
				if n := strings.Count(log, tk); n != 1 {
					t.Fatalf("%s committed %d times:\n%s", tk, n, log)
				}
			}
			if n := strings.Count(log, "Merge branch"); n > 1 {
				t.Fatalf("%d merge commits:\n%s", n, log)
			}
			started := map[string]int{}
			for _, line := range strings.Split(e.must("log", "--json"), "\n") {
				var ev core.Event
				if json.Unmarshal([]byte(line), &ev) == nil && ev.Type == core.EvEffectStarted && ev.Payload.Effect != nil &&
					strings.HasPrefix(ev.Payload.Effect.Key, "mission/") {
					started[ev.Payload.Effect.Key]++
				}
			}
			for k, n := range started {
				if n != 1 {
					t.Fatalf("step %s journaled %d times", k, n)
				}
			}
			if point == "mission.apply:1" {
				// The rollback is a step like the others: kill -9 in it,
				// and the next host finishes it.
				e.must("host", "stop")
				crashDuring(t, bin, e, "mission.undo:1", "mission", "rollback", id)
				e.must("mission", "resume", id)
				eventually(t, "the rollback to finish", func() bool { return e.mission(id).Status == string(core.MissionRolledBack) })
				if log := e.git("log", "--format=%s"); log != "initial" {
					t.Fatalf("after the rollback: %s", log)
				}
			}
			for _, tk := range m.Tasks {
				// A commit found made after the crash counts the task's
				// change as the first run would have (a race's tie-break).
				if tk.Files != 1 {
					t.Fatalf("task %s changed %d files after the crash; it wrote one", tk.ID, tk.Files)
				}
				if v := e.show(tk.Thread); len(v.Runs) != 1 {
					t.Fatalf("task %s has %d runs; a crash must not start it again: %s", tk.ID, len(v.Runs), fmt.Sprint(v.Runs))
				}
			}
		})
	}
}
