package store

import (
	"bytes"
	"fmt"
)

// elem is one element of a branch or leaf page. Offsets are from the
// start of the page (or inline page) that holds it.
type elem struct {
	flags          uint32
	keyOff, keyLen uint64
	valOff, valLen uint64 // leaf only
	child          uint64 // branch only
}

// parseElems reads the element table of a page whose bytes start at b[0]
// (its header) and whose span in the file is span bytes (b may hold only
// the first page of it). Every element must lie inside the span.
func parseElems(b []byte, leaf bool, count int, span uint64) ([]elem, error) {
	end := uint64(pageHeaderSize + count*elemSize)
	if end > span || end > uint64(len(b)) {
		return nil, fmt.Errorf("%d elements do not fit in the page", count)
	}
	es := make([]elem, count)
	for i := range es {
		off := uint64(pageHeaderSize + i*elemSize)
		e, raw := &es[i], b[off:off+elemSize]
		if leaf {
			e.flags = le.Uint32(raw)
			e.keyOff, e.keyLen = off+uint64(le.Uint32(raw[4:])), uint64(le.Uint32(raw[8:]))
			e.valOff, e.valLen = e.keyOff+e.keyLen, uint64(le.Uint32(raw[12:]))
			if e.valOff+e.valLen > span {
				return nil, fmt.Errorf("element %d runs past the page", i)
			}
		} else {
			e.keyOff, e.keyLen = off+uint64(le.Uint32(raw)), uint64(le.Uint32(raw[4:]))
			e.child = le.Uint64(raw[8:])
			if e.keyOff+e.keyLen > span {
				return nil, fmt.Errorf("element %d runs past the page", i)
			}
		}
	}
	return es, nil
}

// walker walks the B+tree of a bbolt file from a meta page, reading pages
// with preads and checking each before it trusts it.
type walker struct {
	pf  *pageFile
	hwm uint64 // the meta's high-water mark: pages at or above it are not in use
	// full reads every page whole, leaves too, and then checks that
	// every page below hwm is either in use or free (verify, repair).
	// Otherwise only the branch pages and the root bucket's leaf are
	// read, and a leaf under a branch is checked only to lie inside the
	// file (open: a few dozen pages for a million events).
	full bool
	// tolerant records each problem and walks on (repair); otherwise
	// the walk stops at the first.
	tolerant bool
	// leafFn, if set, sees every leaf: its top-level bucket ("" for the
	// root bucket), its bytes, their offset in the file and its elements.
	leafFn func(bucket string, b []byte, base int64, es []elem)

	seen     pageSet
	problems []string
}

func newWalker(pf *pageFile, hwm uint64, full bool) *walker {
	return &walker{pf: pf, hwm: hwm, full: full, seen: make(pageSet, hwm/64+1)}
}

// pageSet is a set of page ids below a walker's hwm.
type pageSet []uint64

func (s pageSet) has(id uint64) bool { return id/64 < uint64(len(s)) && s[id/64]&(1<<(id%64)) != 0 }

func (s pageSet) add(id uint64) {
	if id/64 < uint64(len(s)) {
		s[id/64] |= 1 << (id % 64)
	}
}

func (w *walker) fail(format string, args ...any) {
	w.problems = append(w.problems, fmt.Sprintf(format, args...))
}

func (w *walker) stopped() bool { return !w.tolerant && len(w.problems) > 0 }

// walk checks the tree of the root bucket at page root and, when full,
// the freelist and that no page is both free and in use or neither.
func (w *walker) walk(root, freelist uint64) {
	w.node("", root, 0, nil, nil)
	if !w.full || w.tolerant || w.stopped() || freelist == noFreelist {
		return
	}
	free := w.freelist(freelist)
	for id := uint64(2); id < w.hwm && !w.stopped(); id++ {
		switch {
		case free[id] && w.seen.has(id):
			w.fail("page %d is both free and in use", id)
		case !free[id] && !w.seen.has(id):
			w.fail("page %d is neither free nor in use", id)
		}
	}
}

// node walks the subtree at page id of bucket, whose keys must lie in
// [lo, hi) (nil: unbounded), as its parent branch says.
func (w *walker) node(bucket string, id uint64, depth int, lo, hi []byte) {
	if w.stopped() {
		return
	}
	if depth > 32 {
		w.fail("page %d: the tree is more than 32 levels deep (pages point in a cycle)", id)
		return
	}
	if w.seen.has(id) {
		w.fail("page %d is referenced twice", id)
		return
	}
	p, err := w.pf.readPage(id, w.hwm, w.full)
	if err != nil {
		w.fail("%v", err)
		return
	}
	for i := uint64(0); i <= p.overflow; i++ {
		w.seen.add(id + i)
	}
	if p.flags != flagBranch && p.flags != flagLeaf {
		w.fail("page %d: flags 0x%02x, not a branch or leaf page", id, p.flags)
		return
	}
	es, err := parseElems(p.b, p.flags == flagLeaf, p.count, w.pf.span(p))
	if err == nil {
		err = keysInOrder(p.b, es, lo, hi)
	}
	if err != nil {
		w.fail("page %d: %v", id, err)
		return
	}
	if p.flags == flagLeaf {
		w.leaf(bucket, p.b, int64(id*w.pf.ps), es, depth)
		return
	}
	if len(es) == 0 {
		w.fail("page %d: a branch page with no elements", id)
		return
	}
	if !w.full && bucket != "" && w.isLeaf(es[0].child) {
		// A B+tree keeps its leaves at one depth: below this branch
		// are only leaves. Open reads the headers of the first and the
		// last (where appends go) and checks the others' ids.
		last := es[len(es)-1].child
		if lp, err := w.pf.readPage(last, w.hwm, false); err != nil {
			w.fail("%v", err)
			return
		} else if lp.flags != flagLeaf {
			w.fail("page %d: flags 0x%02x where a leaf page belongs", last, lp.flags)
			return
		}
		for _, e := range es {
			switch {
			case e.child < 2 || e.child >= w.hwm:
				w.fail("page %d points at page %d, outside the file's %d pages", id, e.child, w.hwm)
			case w.seen.has(e.child):
				w.fail("page %d is referenced twice", e.child)
			}
			w.seen.add(e.child)
		}
		return
	}
	for i, e := range es {
		// Keys were checked to lie in the page, which still holds them.
		next := hi
		if i+1 < len(es) {
			next = p.b[es[i+1].keyOff : es[i+1].keyOff+es[i+1].keyLen]
		}
		w.node(bucket, e.child, depth+1, p.b[e.keyOff:e.keyOff+e.keyLen], next)
	}
}

// isLeaf reports whether page id is a leaf (a failed read is left to the
// walk of that page, which reports it).
func (w *walker) isLeaf(id uint64) bool {
	p, err := w.pf.readPage(id, w.hwm, false)
	return err == nil && p.flags == flagLeaf
}

// leaf hands a leaf to leafFn and walks the sub-buckets it holds: an
// inline bucket's page lies in its value, another's root is a page.
func (w *walker) leaf(bucket string, b []byte, base int64, es []elem, depth int) {
	if w.leafFn != nil {
		w.leafFn(bucket, b, base, es)
	}
	for _, e := range es {
		if e.flags&elemBucket == 0 || w.stopped() {
			continue
		}
		name := bucket
		if name == "" && e.keyOff+e.keyLen <= uint64(len(b)) {
			name = string(b[e.keyOff : e.keyOff+e.keyLen])
		}
		v, err := w.value(b, base, e)
		if err != nil || len(v) < bucketHeaderSize {
			w.fail("bucket %q at offset %d: its header cannot be read", name, base+int64(e.valOff))
			continue
		}
		if root := le.Uint64(v); root != 0 {
			w.node(name, root, 0, nil, nil)
			continue
		}
		in := v[bucketHeaderSize:]
		if len(in) < pageHeaderSize || le.Uint16(in[8:]) != flagLeaf {
			w.fail("bucket %q at offset %d: its inline page is not a leaf", name, base+int64(e.valOff))
			continue
		}
		ies, err := parseElems(in, true, int(le.Uint16(in[10:])), uint64(len(in)))
		if err == nil {
			err = keysInOrder(in, ies, nil, nil)
		}
		if err != nil {
			w.fail("bucket %q at offset %d: %v", name, base+int64(e.valOff), err)
			continue
		}
		w.leaf(name, in, base+int64(e.valOff)+bucketHeaderSize, ies, depth+1)
	}
}

// value returns the value of a leaf element, reading it from the file if
// it lies beyond the bytes read.
func (w *walker) value(b []byte, base int64, e elem) ([]byte, error) {
	if e.valOff+e.valLen <= uint64(len(b)) {
		return b[e.valOff : e.valOff+e.valLen], nil
	}
	return w.pf.readAt(base+int64(e.valOff), int(e.valLen))
}

// keysInOrder checks that the keys it can see increase strictly and lie
// in [lo, hi) (nil: unbounded).
func keysInOrder(b []byte, es []elem, lo, hi []byte) error {
	var prev []byte
	for i, e := range es {
		if e.keyOff+e.keyLen > uint64(len(b)) {
			return nil // in an overflow page that was not read
		}
		k := b[e.keyOff : e.keyOff+e.keyLen]
		switch {
		case i > 0 && bytes.Compare(prev, k) >= 0:
			return fmt.Errorf("key %d is not above key %d", i, i-1)
		case lo != nil && bytes.Compare(k, lo) < 0:
			return fmt.Errorf("key %d is below the key its parent branch gives the page", i)
		case hi != nil && bytes.Compare(k, hi) >= 0:
			return fmt.Errorf("key %d is not below the key of the page after it", i)
		}
		prev = k
	}
	return nil
}

// freelist reads the freelist page: the ids of the free pages.
func (w *walker) freelist(id uint64) map[uint64]bool {
	free := map[uint64]bool{}
	p, err := w.pf.readPage(id, w.hwm, true)
	if err != nil {
		w.fail("freelist: %v", err)
		return free
	}
	if p.flags != flagFreelist {
		w.fail("page %d: flags 0x%02x, but the meta page names it the freelist", id, p.flags)
		return free
	}
	for i := uint64(0); i <= p.overflow; i++ {
		w.seen.add(id + i)
	}
	n, at := uint64(p.count), uint64(pageHeaderSize)
	if p.count == 0xFFFF { // the count did not fit: it is the first id
		if len(p.b) < pageHeaderSize+8 {
			w.fail("page %d: freelist too short", id)
			return free
		}
		n, at = le.Uint64(p.b[pageHeaderSize:]), pageHeaderSize+8
	}
	if n > (uint64(len(p.b))-at)/8 {
		w.fail("page %d: freelist of %d ids does not fit in the page", id, n)
		return free
	}
	for i := uint64(0); i < n; i++ {
		f := le.Uint64(p.b[at+8*i:])
		if f < 2 || f >= w.hwm || free[f] {
			w.fail("page %d: freelist names page %d twice or outside the file", id, f)
			return free
		}
		free[f] = true
	}
	return free
}
