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
