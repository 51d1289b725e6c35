package cli

import (
	"path/filepath"

	"github.com/nexus-tui/nexus/core"
)

// Paths on a project on the hub. A command sent with --project P runs on
// the host that holds P, on that host's machine: the paths it names
// (a thread's workspace) are that machine's, which this one cannot
// check, and what a command would make on this machine's disk first (a
// git worktree, a mission's view of its repository) would be made in
// the wrong place. So on a hub project a new thread's workspace is
// taken as given (whole, never checked here) and defaults to the
// project's latest thread's; worktrees and missions are made on the
// host's machine.

// edgeRefused is the error of an operation that works on this
// machine's files when the project is on the hub ("" project: nil).
func (a *app) edgeRefused(what string) error {
	if a.project == "" {
		return nil
	}
	return usageErr("%s reads or makes files on this machine, but project %s runs on its host's machine: run it there (without --project)", what, a.project)
}

// remoteWorkspace is a new thread's workspace on a hub project: dir as
// given (a path on the host's machine, absolute), else the project's
// latest thread's workspace.
func (a *app) remoteWorkspace(st *core.State, dir string) (string, error) {
	if dir == "" {
		dir = latestWorkspace(st)
		if dir == "" {
			return "", usageErr("project %s has no thread yet: give --workspace DIR, a directory on its host's machine", a.project)
		}
	}
	if !filepath.IsAbs(dir) {
		return "", usageErr("--workspace %s: on a hub project the workspace is a path on its host's machine; give it whole (absolute)", dir)
	}
	return filepath.Clean(dir), nil
}

// latestWorkspace is the workspace of the project's most recently
// created thread that has one and works in no worktree of its own, ""
// when none does.
func latestWorkspace(st *core.State) string {
	var latest *core.Thread
	for _, th := range st.Threads {
		if th.Workspace == "" || th.Worktree != "" {
			continue
		}
		if latest == nil || th.CreatedAt > latest.CreatedAt || th.CreatedAt == latest.CreatedAt && th.ID > latest.ID {
			latest = th
		}
	}
	if latest == nil {
		return ""
	}
	return latest.Workspace
}
