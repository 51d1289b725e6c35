package checkpoint

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"sync"
)

// A capture reads the index files git writes for it, to build the trees
// and count the changes since the parent checkpoint (trees.go). This
// file reads the format (Documentation/gitformat-index.txt), versions 2
// to 4. Indexes it does not read, a split index ("link": most entries
// live in another file) and a sparse one (directory entries), are
// refused with errIndexFormat and git does the work instead.

// errIndexFormat refuses an index this reader does not handle.
var errIndexFormat = errors.New("checkpoint: index format not read here")

// Entry flags.
const (
	flagExtended   = 0x4000 // 16 more flag bits follow (version 3+)
	flagStage      = 0x3000
	extIntentToAdd = 0x2000 // `git add -N`: in the index, not in trees
)

// indexEntry is one index entry. Its slices are valid until the next
// call to next.
type indexEntry struct {
	path  []byte // nil at the end
	mode  uint32
	id    []byte
	flags uint16 // stage and name length
	ext   uint16 // extended flags
}

// indexReader walks the entries of an index file, then its extensions.
type indexReader struct {
	buf     *[]byte // from indexBuffers
	b       []byte  // the file without its trailing checksum
	version uint32
	idLen   int
	left    int    // entries not read yet
	pos     int    // offset of the next entry, then of the extensions
	prev    []byte // version 4: the previous entry's path
}

func openIndexFile(path string, idLen int) (*indexReader, error) {
	return openIndex(path, idLen, nil)
}

// openIndex reads an index file; with want, only if it is that file.
func openIndex(path string, idLen int, want *fileID) (*indexReader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if want != nil {
		if id, ok := idOf(st); !ok || id != *want {
			return nil, errIndexFormat
		}
	}
	buf := indexBuffers.Get().(*[]byte)
	if int64(cap(*buf)) < st.Size() {
		*buf = make([]byte, st.Size())
	}
	b := (*buf)[:st.Size()]
	if _, err := io.ReadFull(f, b); err != nil {
		indexBuffers.Put(buf)
		return nil, err
	}
	r := &indexReader{buf: buf}
	if len(b) < 12+idLen || string(b[:4]) != "DIRC" {
		r.close()
		return nil, errIndexFormat
	}
	r.b, r.version, r.idLen = b[:len(b)-idLen], binary.BigEndian.Uint32(b[4:]), idLen
	r.left, r.pos = int(binary.BigEndian.Uint32(b[8:])), 12
	if r.version < 2 || r.version > 4 {
		r.close()
		return nil, errIndexFormat
	}
	return r, nil
}

// indexBuffers reuses the buffers index files are read into: a capture
// reads two, of about 80 bytes an entry.
var indexBuffers = sync.Pool{New: func() any { return new([]byte) }}

// close gives the buffer back; entries read from r are invalid after.
func (r *indexReader) close() {
	if r.buf != nil {
		indexBuffers.Put(r.buf)
		r.buf, r.b = nil, nil
	}
}

// next decodes the next entry; e.path is nil after the last one.
// Layout: ctime, mtime (8 bytes each), dev, ino, mode, uid, gid, size (4
// each), object id, 16-bit flags (valid, extended, stage, name length),
// 16 more flag bits if extended, then the path: NUL-padded to a multiple
// of 8 bytes (versions 2, 3), or in version 4 a varint of bytes to drop
// from the previous path and the NUL-terminated rest.
func (r *indexReader) next() (e indexEntry, err error) {
	if r.left == 0 {
		return indexEntry{}, nil
	}
	r.left--
	b, start := r.b, r.pos
	p := start + 40 + r.idLen + 2
	if p > len(b) {
		return indexEntry{}, errIndexFormat
	}
	e.mode = binary.BigEndian.Uint32(b[start+24:])
	e.id = b[start+40 : start+40+r.idLen]
	e.flags = binary.BigEndian.Uint16(b[p-2:])
	if e.flags&flagExtended != 0 {
		if r.version < 3 || p+2 > len(b) {
			return indexEntry{}, errIndexFormat
		}
		e.ext, p = binary.BigEndian.Uint16(b[p:]), p+2
	}
	if r.version == 4 {
		drop, n := gitVarint(b[p:])
		if n == 0 || drop > uint64(len(r.prev)) {
			return indexEntry{}, errIndexFormat
		}
		p += n
		end := bytes.IndexByte(b[p:], 0)
		if end < 0 {
			return indexEntry{}, errIndexFormat
		}
		r.prev = append(r.prev[:len(r.prev)-int(drop)], b[p:p+end]...)
		e.path, r.pos = r.prev, p+end+1
	} else {
		end := bytes.IndexByte(b[p:], 0)
		if end < 0 {
			return indexEntry{}, errIndexFormat
		}
		e.path = b[p : p+end : p+end]
		r.pos = start + (p-start+end+8)&^7
	}
	if n := int(e.flags & 0xfff); n != 0xfff && n != len(e.path) || len(e.path) == 0 || r.pos > len(b) {
		return indexEntry{}, errIndexFormat
	}
	if e.mode&0o170000 == 0o040000 {
		return indexEntry{}, errIndexFormat // a sparse index's directory entry
	}
	return e, nil
}

// extensions returns the extensions that follow the entries, by
// signature; it reads ahead without moving r. A split or sparse index is
// refused.
func (r *indexReader) extensions() (map[string][]byte, error) {
	ahead := *r
	ahead.buf, ahead.prev = nil, bytes.Clone(r.prev)
	for ahead.left > 0 {
		if _, err := ahead.next(); err != nil {
			return nil, err
		}
	}
	exts := map[string][]byte{}
	for p := ahead.pos; p < len(r.b); {
		if p+8 > len(r.b) {
			return nil, errIndexFormat
		}
		sig, n := string(r.b[p:p+4]), int(binary.BigEndian.Uint32(r.b[p+4:]))
		if n < 0 || p+8+n > len(r.b) || sig == "link" || sig == "sdir" {
			return nil, errIndexFormat
		}
		exts[sig] = r.b[p+8 : p+8+n]
		p += 8 + n
	}
	return exts, nil
}

// gitVarint decodes git's offset varint (varint.c): 7 bits a byte, most
// significant first, each continuation adding one. n is 0 on error.
func gitVarint(b []byte) (v uint64, n int) {
	for i, c := range b {
		if i >= 9 {
			return 0, 0
		}
		if i > 0 {
			v++
		}
		v = v<<7 | uint64(c&127)
		if c&128 == 0 {
			return v, i + 1
		}
	}
	return 0, 0
}

// inTree reports whether git writes the entry into trees: not an
// unmerged stage, not intent-to-add.
func (e indexEntry) inTree() bool { return e.flags&flagStage == 0 && e.ext&extIntentToAdd == 0 }

// idLen is the length of a raw object id in w's format.
func idLen(w *ws) int { return len(w.emptyTree()) / 2 }
