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

	ioTarget string
	ioNth    = 1
	ioHits   int
	dead     bool
)

func init() {
	target, nth = parse(os.Getenv("NEXUS_FAILPOINT"))
	ioTarget, ioNth = parse(os.Getenv("NEXUS_FAILPOINT_EIO"))
}

// parse reads NAME or NAME:N (N >= 1, default 1).
func parse(spec string) (string, int) {
	name, n, ok := strings.Cut(spec, ":")
	if ok {
		if v, err := strconv.Atoi(n); err == nil && v > 0 {
			return name, v
		}
	}
	return name, 1
}

// Err returns an I/O error once the disk has died: NEXUS_FAILPOINT_EIO=
// NAME[:N] kills it at the N-th Err(NAME), and from then on every Err,
// whatever its name, fails, as every read and write of a dead disk does.
func Err(name string) error {
	mu.Lock()
	defer mu.Unlock()
	if !dead && name == ioTarget {
		ioHits++
		dead = ioHits >= ioNth
	}
	if dead {
		return &os.PathError{Op: name, Path: "failpoint", Err: syscall.EIO}
	}
	return nil
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
