//go:build failpoints

package failpoint

import (
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

var (
	mu     sync.Mutex
	hits   = map[string]int{}
	target string
	nth    = 1
)

func init() {
	spec := os.Getenv("NEXUS_FAILPOINT")
	name, n, ok := strings.Cut(spec, ":")
	target = name
	if ok {
		if v, err := strconv.Atoi(n); err == nil && v > 0 {
			nth = v
		}
	}
}

// Hit kills the process when name is the armed failpoint and this is its
// armed occurrence.
func Hit(name string) {
	if name != target {
		return
	}
	mu.Lock()
	hits[name]++
	fire := hits[name] == nth
	mu.Unlock()
	if fire {
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {} // never returns: the signal is on its way
	}
}
