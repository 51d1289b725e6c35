package store

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"strings"
)

// bbolt's file layout, read here with plain preads so that a damaged file
// is judged before bbolt maps it: bbolt trusts every page it reaches and
// panics (or, for a page past the end of a cut-short file, dies of
// SIGBUS) where the bytes are not what it wrote. These are bbolt's
// constants (go.etcd.io/bbolt/internal/common), in the machine's byte
// order, which is little-endian on every platform nexus builds for.
const (
	boltMagic        = 0xED0CDAED
	boltVersion      = 2
	pageHeaderSize   = 16 // id uint64, flags uint16, count uint16, overflow uint32
	elemSize         = 16 // a branch or a leaf element
	bucketHeaderSize = 16 // root pgid uint64, sequence uint64
	metaChecksumOff  = 56 // the meta's FNV-64a covers the bytes before it
	noFreelist       = ^uint64(0)

	flagBranch   = 0x01
	flagLeaf     = 0x02
	flagMeta     = 0x04
	flagFreelist = 0x10
	elemBucket   = 0x01 // a leaf element that is a sub-bucket
)

var le = binary.LittleEndian

// boltMeta is one of the two meta pages.
type boltMeta struct {
	ok       bool
	why      string // why it is not ok
	pageSize uint64
	root     uint64 // root bucket's page
	freelist uint64
	hwm      uint64 // pages in use: the high-water mark
	txid     uint64
}

func parseMeta(b []byte) boltMeta {
	if len(b) < pageHeaderSize+64 {
		return boltMeta{why: "short"}
	}
	m := b[pageHeaderSize:]
	switch {
	case le.Uint32(m[0:]) != boltMagic:
		return boltMeta{why: "no bbolt magic"}
	case le.Uint32(m[4:]) != boltVersion:
		return boltMeta{why: fmt.Sprintf("bbolt version %d", le.Uint32(m[4:]))}
	}
	h := fnv.New64a()
	h.Write(m[:metaChecksumOff])
	if h.Sum64() != le.Uint64(m[metaChecksumOff:]) {
		return boltMeta{why: "checksum mismatch"}
	}
	return boltMeta{ok: true, pageSize: uint64(le.Uint32(m[8:])), root: le.Uint64(m[16:]),
		freelist: le.Uint64(m[32:]), hwm: le.Uint64(m[40:]), txid: le.Uint64(m[48:])}
}

// pageFile reads a bbolt file page by page with preads; every offset is
// checked against the file's size before it is read.
type pageFile struct {
	r    io.ReaderAt
	path string
	size int64
	ps   uint64 // page size
	// data, if set, is the file mapped read-only: readAt then returns
	// slices of it, which callers must not change. Only walkTx maps the
	// file, and only inside guard (a file cut short under the mapping
	// faults).
	data []byte
}

// readAt reads n bytes at off, which must lie inside the file.
func (pf *pageFile) readAt(off int64, n int) ([]byte, error) {
	if off < 0 || n < 0 || off+int64(n) > pf.size {
		return nil, fmt.Errorf("offset %d+%d is past the end of the file (%d bytes)", off, n, pf.size)
	}
	if pf.data != nil {
		return pf.data[off : off+int64(n) : off+int64(n)], nil
	}
	b := make([]byte, n)
	if _, err := pf.r.ReadAt(b, off); err != nil {
		return nil, err
	}
	return b, nil
}

// metas reads both meta pages and sets the page size: the one meta page
// 0 names, else a guess.
func (pf *pageFile) metas() [2]boltMeta {
	pf.ps = 0
	ms := [2]boltMeta{pf.metaAt(0)}
	if ms[0].ok && !goodPageSize(ms[0].pageSize) {
		ms[0] = boltMeta{why: fmt.Sprintf("page size %d", ms[0].pageSize)}
	}
	if ms[0].ok {
		pf.ps = ms[0].pageSize
	} else {
		pf.ps = pf.guessPageSize()
	}
	ms[1] = pf.metaAt(1)
	if ms[1].ok && ms[1].pageSize != pf.ps {
		ms[1] = boltMeta{why: fmt.Sprintf("page size %d", ms[1].pageSize)}
	}
	return ms
}

// metaAt reads meta page id (0 or 1) at the page size set.
func (pf *pageFile) metaAt(id uint64) boltMeta {
	b, err := pf.readAt(int64(id*pf.ps), pageHeaderSize+64)
	if err != nil {
		return boltMeta{why: "cannot be read"}
	}
	return parseMeta(b)
}

func goodPageSize(ps uint64) bool { return ps >= 1024 && ps <= 1<<24 && ps&(ps-1) == 0 }

// guessPageSize finds the page size when meta page 0 does not give it: a
// valid second meta page at that offset, else the size at which the most
// pages carry their own id (a file whose meta pages are both gone), else
// PageSize.
func (pf *pageFile) guessPageSize() uint64 {
	for ps := uint64(1024); ps <= 1<<24 && int64(ps) < pf.size; ps <<= 1 {
		if b, err := pf.readAt(int64(ps), pageHeaderSize+64); err == nil {
			if m := parseMeta(b); m.ok && m.pageSize == ps {
				return ps
			}
		}
	}
	best, bestN := uint64(PageSize), 0
	for ps := uint64(1024); ps <= 1<<16; ps <<= 1 {
		n := 0
		for id := uint64(2); id < 66 && int64((id+1)*ps) <= pf.size; id++ {
			if h, err := pf.readAt(int64(id*ps), pageHeaderSize); err == nil && le.Uint64(h) == id {
				n++
			}
		}
		if n > bestN {
			best, bestN = ps, n
		}
	}
	return best
}

// current is the meta page bbolt would use: the valid one with the
// higher transaction id.
func current(ms [2]boltMeta) (boltMeta, bool) {
	switch {
	case ms[0].ok && ms[1].ok && ms[1].txid > ms[0].txid:
		return ms[1], true
	case ms[0].ok:
		return ms[0], true
	case ms[1].ok:
		return ms[1], true
	}
	return boltMeta{}, false
}

// preflight checks a non-empty journal file before bbolt maps it: a valid
// meta page, and a file long enough for every page that meta counts (a
// page past the end of a cut-short file is a SIGBUS when bbolt touches
// it, which no recover can catch).
func preflight(f *os.File, path string) error {
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("store: journal file: %w", err)
	}
	pf := &pageFile{r: f, path: path, size: fi.Size()}
	ms := pf.metas()
	m, ok := current(ms)
	switch {
	case !ok && !strings.Contains(ms[0].why+ms[1].why, "checksum") && allZero(pf):
		return damaged(path, "its first %d bytes are zero: no meta page", min(pf.size, 2*int64(pf.ps)))
	case !ok:
		return damaged(path, "both meta pages are damaged: page 0 %s, page 1 %s", ms[0].why, ms[1].why)
	case m.hwm < 4 || m.root < 2 || m.root >= m.hwm || (m.freelist != noFreelist && (m.freelist < 2 || m.freelist >= m.hwm)):
		return damaged(path, "its meta page (transaction %d) points outside its %d pages", m.txid, m.hwm)
	case int64(m.hwm*m.pageSize) > pf.size || m.hwm > uint64(pf.size):
		return damaged(path, "it was cut short: %d bytes, but its meta page counts %d pages of %d bytes (%d bytes)",
			pf.size, m.hwm, m.pageSize, m.hwm*m.pageSize)
	}
	return nil
}

// allZero reports whether the start of the file is all zero bytes.
func allZero(pf *pageFile) bool {
	b, err := pf.readAt(0, int(min(pf.size, 2*int64(pf.ps))))
	if err != nil {
		return false
	}
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// page is one page (with its overflow pages) as read from the file.
type page struct {
	id       uint64
	flags    uint16
	count    int
	overflow uint64
	b        []byte // the page, header included; only the first page unless read whole
}

// readPage reads page id: the whole span with its overflow pages when
// whole, else only its first page. It checks the header names id and
// that the span lies below limit (the high-water mark) and in the file.
func (pf *pageFile) readPage(id, limit uint64, whole bool) (*page, error) {
	if id < 2 || id >= limit {
		return nil, fmt.Errorf("page %d is outside the file's %d pages", id, limit)
	}
	b, err := pf.readAt(int64(id*pf.ps), int(pf.ps))
	if err != nil {
		return nil, fmt.Errorf("page %d: %v", id, err)
	}
	p := &page{id: le.Uint64(b), flags: le.Uint16(b[8:]), count: int(le.Uint16(b[10:])), overflow: uint64(le.Uint32(b[12:])), b: b}
	switch {
	case p.id != id:
		return nil, fmt.Errorf("page %d says it is page %d (zeroed or overwritten)", id, p.id)
	case id+p.overflow >= limit:
		return nil, fmt.Errorf("page %d: %d overflow pages run past the file's %d pages", id, p.overflow, limit)
	}
	if whole && p.overflow > 0 && pf.data != nil {
		if p.b, err = pf.readAt(int64(id*pf.ps), int((p.overflow+1)*pf.ps)); err != nil {
			return nil, fmt.Errorf("page %d: %v", id, err)
		}
	} else if whole && p.overflow > 0 {
		rest, err := pf.readAt(int64((id+1)*pf.ps), int(p.overflow*pf.ps))
		if err != nil {
			return nil, fmt.Errorf("page %d: %v", id, err)
		}
		p.b = append(b, rest...)
	}
	return p, nil
}

// span is the length in bytes of the page with its overflow pages.
func (pf *pageFile) span(p *page) uint64 { return (p.overflow + 1) * pf.ps }
