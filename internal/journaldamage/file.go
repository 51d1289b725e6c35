package journaldamage

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
)

// bbolt's layout (go.etcd.io/bbolt/internal/common), little-endian.
const (
	headerSize = 16
	elemSize   = 16
	flagBranch = 0x01
	flagLeaf   = 0x02
	magic      = 0xED0CDAED
)

var le = binary.LittleEndian

// File is a journal file read into memory; its methods damage the file
// on disk and the copy alike.
type File struct {
	Path     string
	PageSize int
	// Pages is the current meta page's high-water mark: the pages in use.
	Pages uint64
	root  uint64 // the root bucket's page
	data  []byte
}

// Load reads the journal file at path.
func Load(path string) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	f := &File{Path: path, data: data}
	if len(data) < 1024 || le.Uint32(data[headerSize:]) != magic {
		return nil, errors.New("journaldamage: meta page 0 is not a bbolt meta page")
	}
	f.PageSize = int(le.Uint32(data[headerSize+8:]))
	var txid uint64
	for i := 0; i < 2; i++ {
		m := data[i*f.PageSize+headerSize:]
		if le.Uint32(m) == magic && le.Uint64(m[48:]) >= txid {
			txid, f.root, f.Pages = le.Uint64(m[48:]), le.Uint64(m[16:]), le.Uint64(m[40:])
		}
	}
	return f, nil
}

func (f *File) page(id uint64) []byte { return f.data[id*uint64(f.PageSize):] }

// Flags returns the flags of page id.
func (f *File) Flags(id uint64) uint16 { return le.Uint16(f.page(id)[8:]) }

type elem struct {
	flags      uint32
	key, value []byte
	child      uint64
}

// elems parses the elements of the page (or inline page) p.
func elems(p []byte) []elem {
	n := int(le.Uint16(p[10:]))
	leaf := le.Uint16(p[8:]) == flagLeaf
	out := make([]elem, n)
	for i := range out {
		off := headerSize + i*elemSize
		e := p[off:]
		if leaf {
			pos, ks, vs := int(le.Uint32(e[4:])), int(le.Uint32(e[8:])), int(le.Uint32(e[12:]))
			out[i] = elem{flags: le.Uint32(e), key: p[off+pos : off+pos+ks], value: p[off+pos+ks : off+pos+ks+vs]}
		} else {
			pos, ks := int(le.Uint32(e)), int(le.Uint32(e[4:]))
			out[i] = elem{key: p[off+pos : off+pos+ks], child: le.Uint64(e[8:])}
		}
	}
	return out
}

// bucket returns the root page of the top-level bucket name (0 if it is
// inline) and its inline page.
func (f *File) bucket(name string) (uint64, []byte, error) {
	for _, e := range elems(f.page(f.root)) {
		if string(e.key) == name && e.flags&1 != 0 {
			if r := le.Uint64(e.value); r != 0 {
				return r, nil, nil
			}
			return 0, e.value[16:], nil
		}
	}
	return 0, nil, fmt.Errorf("journaldamage: no bucket %q", name)
}

// EventsRoot is the root page of the events bucket: a branch page once
// the events fill more than one leaf.
func (f *File) EventsRoot() (uint64, error) {
	r, _, err := f.bucket("events")
	if err == nil && r == 0 {
		err = errors.New("journaldamage: the events bucket is inline")
	}
	return r, err
}

// Leaf is a leaf page of the events bucket and the seqs it holds.
type Leaf struct {
	Page        uint64
	First, Last uint64
}

// EventLeaves lists the leaves of the events bucket in seq order.
func (f *File) EventLeaves() ([]Leaf, error) {
	root, err := f.EventsRoot()
	if err != nil {
		return nil, err
	}
	var out []Leaf
	var walk func(id uint64)
	walk = func(id uint64) {
		es := elems(f.page(id))
		if f.Flags(id) == flagBranch {
			for _, e := range es {
				walk(e.child)
			}
			return
		}
		out = append(out, Leaf{Page: id, First: binary.BigEndian.Uint64(es[0].key), Last: binary.BigEndian.Uint64(es[len(es)-1].key)})
	}
	walk(root)
	return out, nil
}

// Value is the stored value of seq (chain hash || encoded event).
func (f *File) Value(seq uint64) ([]byte, error) {
	leaves, err := f.EventLeaves()
	if err != nil {
		return nil, err
	}
	for _, l := range leaves {
		if seq < l.First || seq > l.Last {
			continue
		}
		for _, e := range elems(f.page(l.Page)) {
			if binary.BigEndian.Uint64(e.key) == seq {
				return bytes.Clone(e.value), nil
			}
		}
	}
	return nil, fmt.Errorf("journaldamage: no event %d", seq)
}

// write puts b at off, in the file and the copy.
func (f *File) write(off int64, b []byte) error {
	copy(f.data[off:], b)
	w, err := os.OpenFile(f.Path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	if _, err := w.WriteAt(b, off); err != nil {
		w.Close()
		return err
	}
	return w.Close()
}
