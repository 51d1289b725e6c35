package journaldamage

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
)

// FlipFlags flips bit 3 of page id's flags: a leaf (0x02) reads 0x0a, a
// branch (0x01) 0x09, neither a page type bbolt knows.
func (f *File) FlipFlags(id uint64) error {
	return f.write(int64(id)*int64(f.PageSize)+8, binary.LittleEndian.AppendUint16(nil, f.Flags(id)^0x08))
}

// ZeroPage overwrites page id with zero bytes.
func (f *File) ZeroPage(id uint64) error {
	return f.write(int64(id)*int64(f.PageSize), make([]byte, f.PageSize))
}

// PointOutside makes the first element of branch page id point at a page
// far past the end of the file.
func (f *File) PointOutside(id uint64) error {
	if f.Flags(id) != flagBranch {
		return errors.New("journaldamage: not a branch page")
	}
	return f.write(int64(id)*int64(f.PageSize)+headerSize+8, binary.LittleEndian.AppendUint64(nil, 1<<40))
}

// Truncate cuts the file to size bytes.
func (f *File) Truncate(size int64) error {
	f.data = f.data[:size]
	return os.Truncate(f.Path, size)
}

// DamageMetas flips a byte of the root page id in both meta pages, so
// neither passes its checksum.
func (f *File) DamageMetas() error {
	for i := int64(0); i < 2; i++ {
		off := i*int64(f.PageSize) + headerSize + 16
		if err := f.write(off, []byte{f.data[off] ^ 0x40}); err != nil {
			return err
		}
	}
	return nil
}

// FlipBit flips the low bit of byte at of every copy of value in the
// file (free pages may hold older copies of a leaf), and returns how
// many copies it changed.
func (f *File) FlipBit(value []byte, at int) (int, error) {
	n := 0
	for off := 0; ; {
		i := bytes.Index(f.data[off:], value)
		if i < 0 {
			return n, nil
		}
		pos := int64(off + i + at)
		if err := f.write(pos, []byte{f.data[pos] ^ 0x01}); err != nil {
			return n, err
		}
		n++
		off += i + 1
	}
}
