package tui

import (
	"os"
	"strconv"
	"sync/atomic"
)

// termNice is the scheduling niceness of the panes' reader threads:
// 19 (the lowest priority) unless $NEXUS_TERM_NICE says 0-19. Run sets
// it from the environment; 0 leaves the readers at normal priority (a
// pane that keeps up under load, at the cost of the child's speed).
var termNice atomic.Int32

func init() { termNice.Store(19) }

// setTermNiceFromEnv reads $NEXUS_TERM_NICE; anything but 0-19 keeps 19.
func setTermNiceFromEnv() {
	n, err := strconv.Atoi(os.Getenv("NEXUS_TERM_NICE"))
	if err != nil || n < 0 || n > 19 {
		n = 19
	}
	termNice.Store(int32(n))
}
