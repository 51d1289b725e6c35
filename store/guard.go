package store

import (
	"fmt"
	"runtime/debug"
)

// bbolt trusts the pages of its file: on a page that is not what it
// wrote it panics ("unexpected page type", "page N: invalid freelist",
// an index out of range), and a read of a page the file no longer holds
// is a memory fault. The store never lets either reach its caller: Open
// judges the file before bbolt maps it (preflight, then a walk of the
// B+tree's branch pages), and every call into bbolt on a file that may
// still hide a damaged leaf runs in guard, which turns the panic into an
// error. A cut-short file is refused before bbolt maps it, because a
// SIGBUS is not a panic; debug.SetPanicOnFault, which makes a fault in
// the mapped file panic instead of killing the process, only covers a
// file cut short under a running host.

// bboltPanic is a panic inside bbolt, caught by guard.
type bboltPanic struct{ v any }

func (p *bboltPanic) Error() string { return fmt.Sprintf("bbolt: %v", p.v) }

// guard runs fn, a call into bbolt, and returns a *bboltPanic if bbolt
// panicked or faulted on the mapped file.
func guard(fn func() error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if p := recover(); p != nil {
			err = &bboltPanic{v: p}
		}
	}()
	return fn()
}
