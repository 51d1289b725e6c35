package store

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/vmihailenco/msgpack/v5/msgpcode"
)

// This file holds the msgpack primitives of the hand-written codec. The
// codec exists for speed (replay decodes a million events a second) and
// for determinism (the reflection encoder of vmihailenco/msgpack does not
// sort the keys of map[string]*T, so it cannot encode a State the same way
// twice). It writes exactly the forms the reflection encoder writes with
// UseCompactInts(true), so its bytes are plain msgpack that any msgpack
// library reads with the struct tags of core; codec_test.go checks both
// directions against the reflection codec.

// enc appends msgpack to a byte slice.
type enc struct{ b []byte }

func (e *enc) nil() { e.b = append(e.b, msgpcode.Nil) }

func (e *enc) bool(v bool) {
	if v {
		e.b = append(e.b, msgpcode.True)
	} else {
		e.b = append(e.b, msgpcode.False)
	}
}

func (e *enc) uint(n uint64) {
	switch {
	case n <= math.MaxInt8:
		e.b = append(e.b, byte(n))
	case n <= math.MaxUint8:
		e.b = append(e.b, msgpcode.Uint8, byte(n))
	case n <= math.MaxUint16:
		e.b = binary.BigEndian.AppendUint16(append(e.b, msgpcode.Uint16), uint16(n))
	case n <= math.MaxUint32:
		e.b = binary.BigEndian.AppendUint32(append(e.b, msgpcode.Uint32), uint32(n))
	default:
		e.b = binary.BigEndian.AppendUint64(append(e.b, msgpcode.Uint64), n)
	}
}

func (e *enc) int(n int64) {
	switch {
	case n >= 0:
		e.uint(uint64(n))
	case n >= -32:
		e.b = append(e.b, byte(n))
	case n >= math.MinInt8:
		e.b = append(e.b, msgpcode.Int8, byte(n))
	case n >= math.MinInt16:
		e.b = binary.BigEndian.AppendUint16(append(e.b, msgpcode.Int16), uint16(n))
	case n >= math.MinInt32:
		e.b = binary.BigEndian.AppendUint32(append(e.b, msgpcode.Int32), uint32(n))
	default:
		e.b = binary.BigEndian.AppendUint64(append(e.b, msgpcode.Int64), uint64(n))
	}
}

func (e *enc) float(f float64) {
	e.b = binary.BigEndian.AppendUint64(append(e.b, msgpcode.Double), math.Float64bits(f))
}

func (e *enc) str(s string) {
	n := len(s)
	switch {
	case n < 32:
		e.b = append(e.b, msgpcode.FixedStrLow|byte(n))
	case n <= math.MaxUint8:
		e.b = append(e.b, msgpcode.Str8, byte(n))
	case n <= math.MaxUint16:
		e.b = binary.BigEndian.AppendUint16(append(e.b, msgpcode.Str16), uint16(n))
	default:
		e.b = binary.BigEndian.AppendUint32(append(e.b, msgpcode.Str32), uint32(n))
	}
	e.b = append(e.b, s...)
}

func (e *enc) bin(p string) {
	n := len(p)
	switch {
	case n <= math.MaxUint8:
		e.b = append(e.b, msgpcode.Bin8, byte(n))
	case n <= math.MaxUint16:
		e.b = binary.BigEndian.AppendUint16(append(e.b, msgpcode.Bin16), uint16(n))
	default:
		e.b = binary.BigEndian.AppendUint32(append(e.b, msgpcode.Bin32), uint32(n))
	}
	e.b = append(e.b, p...)
}

func (e *enc) mapLen(n int) {
	switch {
	case n < 16:
		e.b = append(e.b, msgpcode.FixedMapLow|byte(n))
	case n <= math.MaxUint16:
		e.b = binary.BigEndian.AppendUint16(append(e.b, msgpcode.Map16), uint16(n))
	default:
		e.b = binary.BigEndian.AppendUint32(append(e.b, msgpcode.Map32), uint32(n))
	}
}

func (e *enc) arrayLen(n int) {
	switch {
	case n < 16:
		e.b = append(e.b, msgpcode.FixedArrayLow|byte(n))
	case n <= math.MaxUint16:
		e.b = binary.BigEndian.AppendUint16(append(e.b, msgpcode.Array16), uint16(n))
	default:
		e.b = binary.BigEndian.AppendUint32(append(e.b, msgpcode.Array32), uint32(n))
	}
}

// obj writes one struct as a msgpack map. Fields tagged omitempty are
// skipped when empty, as the reflection encoder does, so the map length is
// known only at the end: obj reserves a fixmap byte and widens it to a
// map16 header in the rare case of 16 or more fields.
type obj struct {
	e  *enc
	at int
	n  int
}

func (e *enc) obj() obj {
	at := len(e.b)
	e.b = append(e.b, msgpcode.FixedMapLow)
	return obj{e: e, at: at}
}

func (o *obj) key(k string) { o.e.str(k); o.n++ }

func (o *obj) str(k, v string) { o.key(k); o.e.str(v) }

func (o *obj) strOmit(k, v string) {
	if v != "" {
		o.str(k, v)
	}
}

func (o *obj) int(k string, v int64) { o.key(k); o.e.int(v) }

func (o *obj) intOmit(k string, v int64) {
	if v != 0 {
		o.int(k, v)
	}
}

func (o *obj) uint(k string, v uint64) { o.key(k); o.e.uint(v) }

func (o *obj) bool(k string, v bool) { o.key(k); o.e.bool(v) }

func (o *obj) boolOmit(k string, v bool) {
	if v {
		o.bool(k, v)
	}
}

func (o *obj) floatOmit(k string, v float64) {
	if v != 0 {
		o.key(k)
		o.e.float(v)
	}
}

func (o *obj) strsOmit(k string, v []string) {
	if len(v) == 0 {
		return
	}
	o.key(k)
	o.e.arrayLen(len(v))
	for _, s := range v {
		o.e.str(s)
	}
}

func (o *obj) end() {
	if o.n < 16 {
		o.e.b[o.at] = msgpcode.FixedMapLow | byte(o.n)
		return
	}
	b := append(o.e.b, 0, 0)
	copy(b[o.at+3:], b[o.at+1:len(b)-2])
	b[o.at] = msgpcode.Map16
	binary.BigEndian.PutUint16(b[o.at+1:], uint16(o.n))
	o.e.b = b
}

// reader decodes msgpack from a string. The input is converted to a string
// once per event or snapshot, so every decoded string is a substring of it
// and costs no allocation. The first error sticks: later reads return zero
// values, so decoders check err once at the end.
type reader struct {
	s   string
	p   int
	err error
}

func (r *reader) fail(format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf("msgpack at byte %d: %s", r.p, fmt.Sprintf(format, args...))
	}
	r.p = len(r.s)
}

func (r *reader) code() byte {
	if r.p >= len(r.s) {
		r.fail("unexpected end of data")
		return msgpcode.Nil
	}
	c := r.s[r.p]
	r.p++
	return c
}

// take returns the next n bytes.
func (r *reader) take(n uint64) string {
	if n > uint64(len(r.s)-r.p) {
		r.fail("length %d exceeds the %d bytes left", n, len(r.s)-r.p)
		return ""
	}
	s := r.s[r.p : r.p+int(n)]
	r.p += int(n)
	return s
}

func (r *reader) be(n int) uint64 {
	s := r.take(uint64(n))
	var v uint64
	for i := 0; i < len(s); i++ {
		v = v<<8 | uint64(s[i])
	}
	return v
}

// number reads any msgpack integer (or nil, as 0) as its 64 raw bits, like
// the reflection decoder, which accepts every integer width for every
// integer field.
func (r *reader) number(c byte) (uint64, bool) {
	switch {
	case c == msgpcode.Nil:
		return 0, true
	case msgpcode.IsFixedNum(c):
		return uint64(int64(int8(c))), true
	}
	switch c {
	case msgpcode.Uint8:
		return r.be(1), true
	case msgpcode.Uint16:
		return r.be(2), true
	case msgpcode.Uint32:
		return r.be(4), true
	case msgpcode.Uint64, msgpcode.Int64:
		return r.be(8), true
	case msgpcode.Int8:
		return uint64(int64(int8(r.be(1)))), true
	case msgpcode.Int16:
		return uint64(int64(int16(r.be(2)))), true
	case msgpcode.Int32:
		return uint64(int64(int32(r.be(4)))), true
	}
	return 0, false
}

func (r *reader) uint() uint64 {
	c := r.code()
	n, ok := r.number(c)
	if !ok {
		r.fail("code 0x%02x is not an integer", c)
	}
	return n
}

func (r *reader) int() int64 { return int64(r.uint()) }

func (r *reader) float() float64 {
	c := r.code()
	switch c {
	case msgpcode.Float:
		return float64(math.Float32frombits(uint32(r.be(4))))
	case msgpcode.Double:
		return math.Float64frombits(r.be(8))
	}
	n, ok := r.number(c)
	if !ok {
		r.fail("code 0x%02x is not a number", c)
	}
	return float64(int64(n))
}

func (r *reader) bool() bool {
	switch c := r.code(); c {
	case msgpcode.True:
		return true
	case msgpcode.False, msgpcode.Nil:
	default:
		r.fail("code 0x%02x is not a bool", c)
	}
	return false
}

// str reads a string; like the reflection decoder it accepts bin and nil.
func (r *reader) str() string {
	c := r.code()
	switch {
	case msgpcode.IsFixedString(c):
		return r.take(uint64(c & msgpcode.FixedStrMask))
	case c == msgpcode.Nil:
		return ""
	}
	switch c {
	case msgpcode.Str8, msgpcode.Bin8:
		return r.take(r.be(1))
	case msgpcode.Str16, msgpcode.Bin16:
		return r.take(r.be(2))
	case msgpcode.Str32, msgpcode.Bin32:
		return r.take(r.be(4))
	}
	r.fail("code 0x%02x is not a string", c)
	return ""
}

// collection reads a map or array header. It returns ok=false for nil (and
// on error); min is the least number of bytes one entry takes, used to
// refuse lengths the remaining data cannot hold before anything allocates.
func (r *reader) collection(isMap bool) (n int, ok bool) {
	c := r.code()
	var l uint64
	switch {
	case c == msgpcode.Nil:
		return 0, false
	case isMap && msgpcode.IsFixedMap(c):
		l = uint64(c & msgpcode.FixedMapMask)
	case !isMap && msgpcode.IsFixedArray(c):
		l = uint64(c & msgpcode.FixedArrayMask)
	case isMap && c == msgpcode.Map16, !isMap && c == msgpcode.Array16:
		l = r.be(2)
	case isMap && c == msgpcode.Map32, !isMap && c == msgpcode.Array32:
		l = r.be(4)
	default:
		what := "array"
		if isMap {
			what = "map"
		}
		r.fail("code 0x%02x is not a %s", c, what)
		return 0, false
	}
	min := uint64(1)
	if isMap {
		min = 2
	}
	if l*min > uint64(len(r.s)-r.p) {
		r.fail("collection of %d entries exceeds the %d bytes left", l, len(r.s)-r.p)
		return 0, false
	}
	return int(l), r.err == nil
}

func (r *reader) mapLen() (int, bool)   { return r.collection(true) }
func (r *reader) arrayLen() (int, bool) { return r.collection(false) }

// strs reads a []string: nil stays nil, an empty array becomes an empty
// slice, as with the reflection decoder.
func (r *reader) strs() []string {
	n, ok := r.arrayLen()
	if !ok {
		return nil
	}
	v := make([]string, 0, n)
	for i := 0; i < n && r.err == nil; i++ {
		v = append(v, r.str())
	}
	return v
}

// skip steps over one value of any type. It is iterative, so hostile
// nesting cannot exhaust the stack.
func (r *reader) skip() {
	for pending := uint64(1); pending > 0 && r.err == nil; pending-- {
		c := r.code()
		switch {
		case msgpcode.IsFixedNum(c), c == msgpcode.Nil, c == msgpcode.True, c == msgpcode.False:
		case msgpcode.IsFixedString(c):
			r.take(uint64(c & msgpcode.FixedStrMask))
		case msgpcode.IsFixedMap(c):
			pending += 2 * uint64(c&msgpcode.FixedMapMask)
		case msgpcode.IsFixedArray(c):
			pending += uint64(c & msgpcode.FixedArrayMask)
		default:
			pending += r.skipLong(c)
		}
		if pending > uint64(len(r.s)-r.p)+1 {
			r.fail("nested lengths exceed the data")
		}
	}
}

// skipLong steps over a value with an explicit width and returns how many
// nested values follow it.
func (r *reader) skipLong(c byte) uint64 {
	switch c {
	case msgpcode.Uint8, msgpcode.Int8:
		r.take(1)
	case msgpcode.Uint16, msgpcode.Int16:
		r.take(2)
	case msgpcode.Uint32, msgpcode.Int32, msgpcode.Float:
		r.take(4)
	case msgpcode.Uint64, msgpcode.Int64, msgpcode.Double:
		r.take(8)
	case msgpcode.Str8, msgpcode.Bin8:
		r.take(r.be(1))
	case msgpcode.Str16, msgpcode.Bin16:
		r.take(r.be(2))
	case msgpcode.Str32, msgpcode.Bin32:
		r.take(r.be(4))
	case msgpcode.Array16:
		return r.be(2)
	case msgpcode.Array32:
		return r.be(4)
	case msgpcode.Map16:
		return 2 * r.be(2)
	case msgpcode.Map32:
		return 2 * r.be(4)
	case msgpcode.FixExt1:
		r.take(1 + 1)
	case msgpcode.FixExt2:
		r.take(1 + 2)
	case msgpcode.FixExt4:
		r.take(1 + 4)
	case msgpcode.FixExt8:
		r.take(1 + 8)
	case msgpcode.FixExt16:
		r.take(1 + 16)
	case msgpcode.Ext8:
		r.take(1 + r.be(1))
	case msgpcode.Ext16:
		r.take(1 + r.be(2))
	case msgpcode.Ext32:
		r.take(1 + r.be(4))
	default:
		r.fail("code 0x%02x is not valid msgpack", c)
	}
	return 0
}

// done reports trailing bytes after the top-level value as an error.
func (r *reader) done() error {
	if r.err == nil && r.p != len(r.s) {
		r.fail("%d trailing bytes", len(r.s)-r.p)
	}
	return r.err
}
