package tui

import (
	"path/filepath"
	"sort"

	tea "charm.land/bubbletea/v2"
	"github.com/nexus-tui/nexus/core"
)

// The thread list's order, cycled with the SortThreads key and kept in
// the layout file: by creation (the default), needs me first (a request
// waiting, then failed or interrupted, then running, then unread, then
// the rest; the most recently changed first within each), by repository
// (threads of one repository together, the repository's name on each
// row, so several repositories share one view), or by last activity.
const (
	orderCreated = ""
	orderNeedsMe = "needs me"
	orderRepo    = "repository"
	orderRecent  = "last activity"
)

var orders = []string{orderCreated, orderNeedsMe, orderRepo, orderRecent}

// cycleOrder moves the list to the next order and saves it.
func (m *Model) cycleOrder() tea.Cmd {
	i := 0
	for j, o := range orders {
		if o == m.prefs.ThreadOrder {
			i = j
		}
	}
	m.prefs.ThreadOrder = orders[(i+1)%len(orders)]
	m.derive()
	name := m.prefs.ThreadOrder
	if name == orderCreated {
		name = "creation"
	}
	return tea.Batch(m.setFlash("threads by "+name, false), m.prefsOut.save(m.prefs))
}

// sortRows orders the rows by the list's order.
func (m *Model) sortRows(rows []threadRow) {
	created := func(a, b *core.Thread) bool {
		if a.CreatedAt != b.CreatedAt {
			return a.CreatedAt < b.CreatedAt
		}
		return a.ID < b.ID
	}
	recent := func(a, b *core.Thread) bool {
		if a.UpdatedAt != b.UpdatedAt {
			return a.UpdatedAt > b.UpdatedAt
		}
		return a.ID < b.ID
	}
	sort.SliceStable(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		switch m.prefs.ThreadOrder {
		case orderNeedsMe:
			if ra, rb := m.needRank(a), m.needRank(b); ra != rb {
				return ra < rb
			}
			return recent(a.th, b.th)
		case orderRepo:
			if ka, kb := repoKey(a.th), repoKey(b.th); ka != kb {
				return ka < kb
			}
			return created(a.th, b.th)
		case orderRecent:
			return recent(a.th, b.th)
		}
		return created(a.th, b.th)
	})
	groupMissions(rows)
}

// groupMissions keeps a mission's threads together where its first one
// falls in the order: the planner first, then the tasks by number, then
// the reviewer.
func groupMissions(rows []threadRow) {
	first := map[string]int{}
	for i, r := range rows {
		if m := r.th.Mission; m != "" {
			if _, ok := first[m]; !ok {
				first[m] = i
			}
		}
	}
	if len(first) == 0 {
		return
	}
	rank := func(r threadRow) (int, int) {
		if r.th.Mission == "" {
			return -1, 0
		}
		n := 0
		for _, c := range r.th.Task {
			if c < '0' || c > '9' {
				n = 1 << 30 // the reviewer, after the tasks
				break
			}
			n = n*10 + int(c-'0')
		}
		if r.th.Task == "" {
			n = -1 // the planner
		}
		return first[r.th.Mission], n
	}
	pos := func(i int, r threadRow) int {
		if g, _ := rank(r); g >= 0 {
			return g
		}
		return i
	}
	idx := make([]int, len(rows))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool {
		pa, pb := pos(idx[a], rows[idx[a]]), pos(idx[b], rows[idx[b]])
		if pa != pb {
			return pa < pb
		}
		_, na := rank(rows[idx[a]])
		_, nb := rank(rows[idx[b]])
		return na < nb
	})
	out := make([]threadRow, len(rows))
	for i, j := range idx {
		out[i] = rows[j]
	}
	copy(rows, out)
}

// needRank is how much a thread needs the person: lower first.
func (m *Model) needRank(r threadRow) int {
	switch {
	case r.approvals+r.questions > 0 || r.th.Status == core.ThreadWaiting:
		return 0
	case r.th.Status == core.ThreadFailed || r.recoverable:
		return 1
	case r.th.Status == core.ThreadRunning:
		return 2
	case m.unread(r.th.ID):
		return 3
	}
	return 4
}

// repoKey is the repository a thread works in (its main checkout for a
// worktree thread), else its workspace.
func repoKey(th *core.Thread) string {
	if th.Repo != "" {
		return th.Repo
	}
	return th.Workspace
}

// repoName is the short name of a thread's repository or workspace.
func repoName(th *core.Thread) string {
	k := repoKey(th)
	if k == "" {
		return ""
	}
	return filepath.Base(k)
}
