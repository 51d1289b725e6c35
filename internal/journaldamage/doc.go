// Package journaldamage damages a nexus journal file at the byte level,
// the way a failing disk, a stray write or a cut-short copy would, so
// tests can prove that such a file is refused or repaired and never
// crashes nexus. It reads bbolt's layout itself (the meta page, then
// pages by their header: id uint64, flags uint16, count uint16, overflow
// uint32), independently of bbolt and of package store, whose reader
// is what the tests check.
//
// It is test support: only _test.go files import it.
package journaldamage
