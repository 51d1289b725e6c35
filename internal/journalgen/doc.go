// Package journalgen generates plausible journals for tests and
// benchmarks: threads whose runs go through the event shapes core's
// decider emits, with seqs, ids and times assigned, deterministic for a
// seed. New interleaves up to 12 threads; NewWide models a long-lived
// state dir with many threads of which a few are active at a time.
//
// It is test support: only _test.go files import it.
package journalgen
