// Package journaltest is the conformance suite of core.Journal: what every
// implementation of the port (core.MemJournal, the bbolt store, the NATS
// JetStream journal) must do for core.Runner and the host to rely on it.
// It imports only the standard library and core, so any implementation's
// tests can run it:
//
//	func TestConformance(t *testing.T) {
//		journaltest.Run(t, func(t *testing.T) journaltest.Factory {
//			dir := t.TempDir()
//			return func(t *testing.T) journaltest.Journal { return open(t, dir) }
//		})
//	}
//
// # What it checks
//
//   - An empty journal: Last is 0, Read calls nothing, no snapshot.
//   - Append of several commits, then Read from 0, 1, inside a commit, at
//     a commit boundary, at Last and past it: exactly the events appended,
//     in order, equal field for field (compared by their JSON encoding,
//     which covers every field of core.Event); Last follows each Append.
//   - An Append whose first seq does not follow Last, or whose seqs jump
//     inside the batch, fails with core.ErrSeqMismatch and writes nothing;
//     the journal takes the right seq afterwards.
//   - An Append of nothing, or of commits without events, writes nothing.
//   - Read stops at the first error fn returns and returns it; a Read
//     with a cancelled context returns context.Canceled.
//   - SaveSnapshot and LoadSnapshot: nil before any; the projection comes
//     back equal; of two, the one at the higher seq wins; a loaded
//     snapshot plus the tail replays to the same projection as the whole
//     journal (the Runner's load).
//   - Close and reopen: every acknowledged event and the snapshot survive,
//     and appends go on at Last+1.
//   - Concurrent writers that take a lock of their own around computing
//     the next seq and calling Append (as the Runner's single goroutine
//     does), with a reader running alongside: every Append lands, and
//     every Read sees a gapless prefix.
//
// Only what the port promises is checked. In particular the suite always
// snapshots increasing seqs (core.MemJournal keeps only the last one) and
// does not ask what an Append does with a cancelled context.
package journaltest
