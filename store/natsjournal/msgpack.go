package natsjournal

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/vmihailenco/msgpack/v5/msgpcode"
)

// maxDepth bounds how deeply a body's msgpack may nest. core.Event nests
// a handful of levels; anything deeper is not a journal message.
const maxDepth = 32

// checkMsgpack checks that b is exactly one well-formed msgpack value
// whose every array and map declares no more elements than there are
// bytes left, nested at most maxDepth deep. The reflection decoder sizes
// a slice by the length it reads before reading any element, so without
// this check a few forged bytes could make it allocate gigabytes.
func checkMsgpack(b []byte) error {
	end, err := skipValue(b, 0, 0)
	if err != nil {
		return err
	}
	if end != len(b) {
		return fmt.Errorf("%d bytes after the value", len(b)-end)
	}
	return nil
}

var errShort = errors.New("value cut short")

// skipValue returns the offset after the value at b[i:].
func skipValue(b []byte, i, depth int) (int, error) {
	if depth > maxDepth {
		return 0, fmt.Errorf("nested more than %d deep", maxDepth)
	}
	if i >= len(b) {
		return 0, errShort
	}
	c := b[i]
	i++
	switch {
	case msgpcode.IsFixedNum(c), c == msgpcode.Nil, c == msgpcode.True, c == msgpcode.False:
		return i, nil
	case msgpcode.IsFixedString(c):
		return skipBytes(b, i, int(c&msgpcode.FixedStrMask))
	case msgpcode.IsFixedArray(c):
		return skipElems(b, i, int(c&msgpcode.FixedArrayMask), depth)
	case msgpcode.IsFixedMap(c):
		return skipElems(b, i, 2*int(c&msgpcode.FixedMapMask), depth)
	}
	switch c {
	case msgpcode.Uint8, msgpcode.Int8:
		return skipBytes(b, i, 1)
	case msgpcode.Uint16, msgpcode.Int16:
		return skipBytes(b, i, 2)
	case msgpcode.Uint32, msgpcode.Int32, msgpcode.Float:
		return skipBytes(b, i, 4)
	case msgpcode.Uint64, msgpcode.Int64, msgpcode.Double:
		return skipBytes(b, i, 8)
	case msgpcode.FixExt1, msgpcode.FixExt2, msgpcode.FixExt4, msgpcode.FixExt8, msgpcode.FixExt16:
		return skipBytes(b, i, 1+fixExtLen(c))
	case msgpcode.Str8, msgpcode.Bin8, msgpcode.Ext8:
		return skipSized(b, i, 1, c == msgpcode.Ext8)
	case msgpcode.Str16, msgpcode.Bin16, msgpcode.Ext16:
		return skipSized(b, i, 2, c == msgpcode.Ext16)
	case msgpcode.Str32, msgpcode.Bin32, msgpcode.Ext32:
		return skipSized(b, i, 4, c == msgpcode.Ext32)
	case msgpcode.Array16, msgpcode.Map16, msgpcode.Array32, msgpcode.Map32:
		size := 2
		if c == msgpcode.Array32 || c == msgpcode.Map32 {
			size = 4
		}
		n, j, err := readLen(b, i, size)
		if err != nil {
			return 0, err
		}
		if c == msgpcode.Map16 || c == msgpcode.Map32 {
			n *= 2
		}
		return skipElems(b, j, n, depth)
	}
	return 0, fmt.Errorf("byte %#x at offset %d starts no msgpack value", c, i-1)
}

func fixExtLen(c byte) int {
	switch c {
	case msgpcode.FixExt1:
		return 1
	case msgpcode.FixExt2:
		return 2
	case msgpcode.FixExt4:
		return 4
	case msgpcode.FixExt8:
		return 8
	}
	return 16
}

// readLen reads a big-endian length of size bytes at b[i:].
func readLen(b []byte, i, size int) (int, int, error) {
	if len(b)-i < size {
		return 0, 0, errShort
	}
	var n uint64
	switch size {
	case 1:
		n = uint64(b[i])
	case 2:
		n = uint64(binary.BigEndian.Uint16(b[i:]))
	default:
		n = uint64(binary.BigEndian.Uint32(b[i:]))
	}
	if n > uint64(len(b)) {
		return 0, 0, fmt.Errorf("length %d is longer than the body", n)
	}
	return int(n), i + size, nil
}

// skipSized skips a str, bin or ext whose length takes size bytes (an
// ext has a type byte after it).
func skipSized(b []byte, i, size int, ext bool) (int, error) {
	n, j, err := readLen(b, i, size)
	if err != nil {
		return 0, err
	}
	if ext {
		n++
	}
	return skipBytes(b, j, n)
}

func skipBytes(b []byte, i, n int) (int, error) {
	if n > len(b)-i {
		return 0, errShort
	}
	return i + n, nil
}

// skipElems skips n values; each takes at least one byte, so a length
// beyond the bytes left is refused before anything is read.
func skipElems(b []byte, i, n, depth int) (int, error) {
	if n > len(b)-i {
		return 0, fmt.Errorf("%d elements declared, %d bytes left", n, len(b)-i)
	}
	var err error
	for range n {
		if i, err = skipValue(b, i, depth+1); err != nil {
			return 0, err
		}
	}
	return i, nil
}
