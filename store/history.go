package store

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// backupFile matches the copies of a journal that nexus keeps in the
// state dir: journal.db.corrupt-<unix time>[-n] (Repair) and
// journal.db.v<version>-<unix time> (a migration).
var backupFile = regexp.MustCompile(`^` + regexp.QuoteMeta(JournalFile) + `\.(corrupt-\d+(-\d+)?|v\d+-\d+)$`)

// earlierJournal lists what in the state dir dir shows that a journal
// existed there: copies of a journal, and workspace checkpoints (shadow
// repositories and captured indexes under checkpoints/), which the host
// writes only after it opened a journal. Per-thread worktrees do not
// count: `thread new --worktree` makes one before the first journal.
func earlierJournal(dir string) []string {
	var found []string
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if backupFile.MatchString(e.Name()) {
			found = append(found, e.Name()+" (a copy of a journal)")
		}
	}
	for _, sub := range []string{"shadow", "last"} {
		rel := filepath.Join("checkpoints", sub)
		entries, _ := os.ReadDir(filepath.Join(dir, rel))
		for _, e := range entries {
			if !strings.HasPrefix(e.Name(), ".") {
				found = append(found, rel+"/ (workspace checkpoints)")
				break
			}
		}
	}
	return found
}
