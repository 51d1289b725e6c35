package store

import (
	"fmt"
	"syscall"

	bolt "go.etcd.io/bbolt"
)

// walkPages walks the B+tree of the journal as of a read transaction,
// with preads on the file, and returns the first problem ("" if none).
// The transaction keeps every page it can reach from being reused while
// the walk reads them, so a walk beside a running commit loop sees one
// consistent tree. full reads every page (verify); otherwise only the
// branch pages and the root bucket's leaf (open).
func (s *Store) walkPages(full bool) (string, error) {
	var problem string
	err := s.viewRaw(func(tx *bolt.Tx) error {
		problem = s.walkTx(tx, full)
		return nil
	})
	if bp, ok := err.(*bboltPanic); ok {
		return "", damaged(s.path, "%v", bp)
	}
	return problem, err
}

func (s *Store) walkTx(tx *bolt.Tx, full bool) string {
	fi, err := s.file.Stat()
	if err != nil {
		return fmt.Sprintf("the file cannot be read: %v", err)
	}
	pf := &pageFile{r: s.file, path: s.path, size: fi.Size(), ps: uint64(s.db.Info().PageSize)}
	// A mapping of its own spares the walk a copy of every page; the
	// walk checks each offset against the size mapped.
	if data, err := syscall.Mmap(int(s.file.Fd()), 0, int(pf.size), syscall.PROT_READ, syscall.MAP_SHARED); err == nil {
		pf.data = data
		defer syscall.Munmap(data)
	}
	hwm := uint64(tx.Size()) / pf.ps
	// The freelist's page is in the meta page of this transaction,
	// unless a later commit has already overwritten that meta page: then
	// the walk checks the tree but not the freelist.
	freelist := noFreelist
	for id := uint64(0); id < 2; id++ {
		if m := pf.metaAt(id); m.ok && m.txid == uint64(tx.ID()) {
			freelist = m.freelist
		}
	}
	w := newWalker(pf, hwm, full)
	w.walk(uint64(tx.Cursor().Bucket().Root()), freelist)
	if len(w.problems) == 0 {
		return ""
	}
	return w.problems[0]
}
