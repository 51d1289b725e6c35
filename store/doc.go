// Package store is the durable journal of nexus: an append-only bbolt file
// of events with a BLAKE3 hash chain, a group-commit loop, snapshots of
// the projection, verification and repair, and a portable archive. It
// implements core.Journal. Only internal/host (a host's journal) and
// internal/cli (verify, export, import) open it; tui never imports it.
//
// This comment is the on-disk format specification. Every constant it
// names carries the comment "part of the on-disk format": changing one
// changes the format (see Migrations).
//
// # Files
//
// The state dir (mode 0700 when Open creates it) holds:
//
//	journal.db   the bbolt file (0600), the only place durable state lives
//	host.pid     the pid of the process holding the journal lock (0600),
//	             written right after the lock is taken and read only to name
//	             the holder in a *LockedError
//	journal.db.corrupt-<unix time>   originals kept by Repair
//	journal.db.rebuild   a repair's new journal, until it replaces journal.db
//
// Open refuses a state dir or journal file that is a symbolic link (Lstat
// before, O_NOFOLLOW on the open itself) and a journal file with more than
// one hard link (checked on the opened file), so nobody can point nexus at
// a file somewhere else. bbolt's flock on journal.db is the single-writer
// lock: a second process waits Options.LockTimeout (1 s) and gets a
// *LockedError naming the pid in host.pid. The store is unix-only (flock,
// O_NOFOLLOW, link counts), like nexus.
//
// # Buckets
//
// journal.db has these top-level buckets (vault appears with the first
// snapshot that seals a run):
//
//	meta       format header and the durable tail
//	  "format"   the bytes "nexus-journal" (FormatName)
//	  "version"  uint32 big-endian, 1 (FormatVersion)
//	  "last"     uint64 big-endian last seq || its 32-byte chain hash
//	             (seq 0 and 32 zero bytes when empty)
//	events     key: uint64 big-endian seq, gapless from 1
//	           value: 32-byte chain hash || encoded event
//	snapshots  key: uint64 big-endian seq the snapshot covers
//	           value: 92-byte header || body (below)
//	vault      key: 32-byte BLAKE3-256 of the value
//	           value: a sealed run history (below)
//
// New files use 4 KiB bbolt pages (PageSize: a commit rewrites its dirty
// pages whole, so smaller pages make each flush cheaper on disk; files
// made with 16 KiB pages keep them) and grow 4 MiB at a time. The
// events bucket uses FillPercent 1.0: keys only grow, so full pages are
// never split again. Nothing updates or deletes an event; Repair writes
// a new file and keeps the original (see Damaged journals).
//
// # Events
//
// An event is the msgpack encoding of core.Event: a map keyed by the
// msgpack struct tags of core.Event, core.Payload and the entities of
// core/model.go and core/agent.go (q seq, i id, t type, th thread, ru run, at attempt, no
// node, co correlation, ca causation, a unix nanos, p payload), fields in
// struct order, omitempty fields left out when empty, integers in their
// shortest msgpack form, float64 as a msgpack double. That is exactly what
// vmihailenco/msgpack's reflection encoder writes with UseCompactInts, so
// any msgpack reader with the core structs decodes it. The store encodes
// and decodes with a hand-written codec (codec*.go) for speed and
// determinism; tests prove it byte-identical to the reflection encoder and
// value-identical to its decoder, and format_golden_test.go pins the
// exact bytes (events, chain, snapshot, JSON) of representative journals
// against testdata/format.golden. Decoders ignore keys they do not know,
// so adding fields does not break old files.
//
// # Hash chain
//
// hash(seq) = BLAKE3-256(hash(seq-1) || encoded event), with hash(0) = 32
// zero bytes. The hash is over the stored bytes, so verifying never
// re-encodes. Read verifies from the stored hash of seq from-1; Verify
// and Export from seq 1; a mismatch, a missing seq or an event that does
// not decode (or whose seq differs from its key) is a *CorruptError.
//
// # Group commit
//
// One goroutine (the commit loop) writes. Append and Enqueue encode on the
// caller's goroutine and queue the batch; the loop takes every queued
// batch (up to 1024; under load it first waits up to 100µs, yielding,
// for as many as it took last time, so batches stay large), checks that each starts at the next seq
// (core.ErrSeqMismatch for one that does not; it writes nothing), chains
// the hashes, puts all events and meta/last in one bbolt transaction
// (one fsync of the data pages, one of the meta page) and only then
// acknowledges each caller. If the transaction fails every caller in it
// gets the error and nothing of it is visible. A failed bbolt commit whose
// outcome cannot be known (the meta page written, its fsync failed) makes
// every later Append fail with ErrFailed until restart. Concurrent
// producers use Enqueue (hand over in order, return at once) and
// Pending.Wait, so they share fsyncs; core's Runner calls Append.
//
// Commit boundaries and Commit.Command are not stored: each event carries
// its causation (the command id), and deduplication is the projection's
// job (core.Receipt), so a second backend need not support it either.
//
// # Snapshots
//
// A snapshot value is a header followed by the body:
//
//	[0:8]   "nexussnp"
//	[8:12]  uint32 snapshot version, 2 (1 is still read: no "sealed")
//	[12:20] uint64 seq covered (equals the key)
//	[20:52] chain hash of the event at seq (zero for seq 0)
//	[52:84] BLAKE3-256 of the body
//	[84:92] uint64 body length
//	[92:]   body: EncodeState of the projection at seq
//
// The body is msgpack of core.State under its struct tags with every map's
// keys sorted bytewise, so equal projections encode to equal bytes; the
// derived index is not stored (DecodeState calls Reindex). SaveSnapshot
// keeps the newest two and deletes older ones in the same transaction.
// LoadSnapshot returns the newest whose body hash matches and whose chain
// hash equals the stored hash of the event at its seq, else the older one,
// else nil; the caller replays the tail with Read. The policy of when to
// snapshot belongs to the caller: the core Runner snapshots at least every
// 10,000 events and on clean exit. Verify replays the whole journal and
// checks each snapshot equals the replay at its seq byte for byte, and
// each vault blob it names equals the replay's.
//
// # Sealed runs and the vault
//
// Most of a long journal's projection is the history of finished runs,
// which never changes. The body leaves out of its maps the attempts,
// nodes, todo list and effect records of every run core.State.Sealable
// accepts (finished, no effect still started, every entity named under
// the run's id) and names the run under the body key "sealed" (map run
// id -> 64 hex digits of the BLAKE3-256 of its blob). The blob is msgpack
// {"attempts": [...], "nodes": [...], "plan": plan or nil, "effects":
// [...]} in core.SealedRun's canonical order, stored in the vault under
// its hash in the snapshot's transaction, and never rewritten or deleted
// (a run is sealed once unless a later event changes it, so garbage is
// rare and small). Which runs are sealed depends only on the content, so
// the body stays a pure function of the projection.
//
// LoadSnapshot decodes only the body: a sealed history is read, checked
// against its hash and decoded on first use (core.Seal), so opening costs
// the live part of the projection, not the whole history. A blob that
// fails its hash then stops the host with a message naming
// verify --repair; Verify finds it first, and Repair rebuilds the journal
// from its events with one new snapshot, so the vault is written afresh.
//
// # Crash behaviour
//
// bbolt commits copy-on-write: new pages are written and fsynced, then
// one of the two meta pages (alternating by transaction id) is written and
// fsynced. A crash before the meta fsync leaves the previous meta page
// current, so the journal is exactly as after the previous commit: the
// half-written transaction was never acknowledged and is gone as a whole.
// A crash after it leaves the new transaction durable. A process killed
// (not a machine losing power) after the meta write but before its fsync
// returned leaves the page in the OS cache, so the transaction survives
// although its callers were never acknowledged: after a crash the journal
// holds every acknowledged event and possibly the last batch that was
// not, which is why the Runner starts effects only after Append returns.
// A torn meta page fails its checksum and bbolt opens with the other one. Every event of a
// batch and meta/last change in the same transaction, so the events bucket
// and meta/last always agree; Open checks that and reports a
// *CorruptError if the file was damaged. Snapshots are written in their
// own transactions and are only an optimisation: a lost or damaged one
// means a longer replay, never lost events. When Open creates the journal
// file it fsyncs the state dir, and the dir above it, before returning,
// so the file's name survives a power loss as surely as its contents.
//
// # Damaged journals
//
// bbolt trusts its file: on a page that is not what it wrote it panics,
// and touching a page past the end of a file that was cut short is a
// SIGBUS, which no recover survives. So the store judges a file before
// bbolt reads it, turns what bbolt still does on a damaged page into an
// error, and a person sees one line naming the repair, never a stack
// trace (internal/cli prints *DamagedError and *HistoryError so).
//
//   - Open takes the journal lock itself (bbolt's OpenFile hook) and,
//     under it and before bbolt maps the file, reads both meta pages with
//     preads (magic, version, checksum) and checks that the file holds
//     every page the current meta page counts (pagefile.go). Then it
//     walks the B+tree from that meta page (pagewalk.go): the root
//     bucket's leaf, every branch page of every bucket, and the headers
//     of the first and the last leaf under each branch (the tail, where
//     appends go): page ids, types, element bounds, key order. Then it
//     loads the header and checks the tail. Each failure is a
//     *DamagedError.
//   - That walk reads a few dozen pages for a million events (about
//     2 ms). Checking every page (150 ms for the million-event journal of
//     BENCHMARKS.md, 448 MiB; the headers alone 40-80 ms) would break the
//     100 ms open target, so a damaged leaf further back is found when
//     something reads it: every call into bbolt runs in guard (guard.go),
//     which turns a bbolt panic, and with debug.SetPanicOnFault a fault
//     in the mapped file, into a *DamagedError naming the page (a full
//     walk finds it). A host starts from a snapshot and the tail, so it
//     starts on a journal whose damage lies in older history it does not
//     read; verify, export, or a replay that reads that history fails
//     with the same one line.
//   - Verify walks every page first (checkPages): what bbolt's tx.Check
//     checks, at about its cost, without its panics (tx.Check panics on
//     a goroutine of its own, where no recover reaches). With a damaged
//     page it reads no event through bbolt and sets Report.Damaged.
//   - A missing or 0-byte journal.db is a new journal only in a state
//     dir that shows no earlier one: a copy of a journal
//     (journal.db.corrupt-*, journal.db.v*-*) or workspace checkpoints
//     (checkpoints/shadow, checkpoints/last), which the host writes only
//     after it opened a journal, make Open and Repair refuse it with a
//     *HistoryError, since taking it would silently start history over.
//     Options.AcceptEmpty (nexus import, which restores such a dir from
//     an export) takes it.
//
// Repair (nexus verify --repair) leaves a healthy journal alone.
// Otherwise it reads the file with preads, without bbolt (salvage.go):
//
//   - Where it looks: the events bucket's leaves reached from the
//     current meta page, stepping over damaged pages, then every other
//     page that parses as a leaf, whatever its flags say. Free pages
//     count: they hold older copies of leaves, so a value damaged in
//     place often survives in one, and with both meta pages damaged the
//     page size is guessed from the pages that carry their own id.
//   - Intact: a value is the event at its seq when it decodes as the
//     event with that seq and the chain vouches for its bytes: its
//     stored hash equals BLAKE3(the hash before it || its bytes), or,
//     when only its stored hash is damaged, the next event chains from
//     BLAKE3(the hash before it || its bytes). The hash before seq 1 is
//     32 zero bytes; before any other it is the previous intact event's
//     hash or, when that event is lost, the stored hash of a copy of it
//     that the event checked chains from (the hash is then vouched for
//     even if the bytes before it are not). So a damaged event costs
//     only itself; after a stretch of which no copy is left (a zeroed
//     leaf) the first event is lost too, since nothing vouches for its
//     bytes. Where two different values claim a seq (only a journal an
//     older nexus truncated in place can hold both), the current tree's
//     wins over a free page's.
//   - What it writes: every intact event with its original bytes and,
//     at each lost seq below the last intact event, a journal.repaired
//     event (core.EvJournalRepaired, whose note says why and names the
//     original), so seqs stay gapless from 1. The chain is computed
//     afresh: from the first lost seq on the hashes differ from the
//     original's, which is kept and still proves the rest. Events after
//     the last intact one are gone; RepairResult.Dropped counts those
//     meta/last says existed (a lower bound, DroppedAtLeast, when
//     meta/last is unreadable too). No snapshot or vault blob is copied:
//     the new file gets one snapshot of its full replay.
//   - How it swaps: the new file, journal.db.rebuild, is verified in
//     full before anything else changes; then the original is hard-linked
//     as journal.db.corrupt-<unix time>, the new file renamed over
//     journal.db and the dir fsynced, so journal.db always exists. A
//     repair killed between link and rename leaves journal.db with two
//     links; the next repair removes the backup link (the same file) and
//     starts again. Open checks, under the lock, that the file it locked
//     is still the one named journal.db, so a process that waited for the
//     lock during a repair opens the new journal.
//
// bbolt writes its pages in the machine's byte order; the store reads
// them little-endian, which every platform nexus builds for is.
//
// # Archive
//
// Export writes "nexus-journal-archive 1\n" then, per event, a frame
// (uint32 big-endian length, then msgpack array [seq, hash bin32, event
// bin] with the stored event bytes), then an end frame (length, msgpack
// array [event count, last hash bin32]). Import takes it into an empty
// journal only, re-verifies seqs, chain, decoding and the end frame, and
// writes all of it in one transaction or nothing.
//
// # Migrations
//
// Adding an event type, an entity field or a payload field is not a
// format change: decoders skip unknown keys and core.State.Apply ignores
// unknown types. Anything else (renaming a tag, changing a key, the hash,
// the snapshot header) bumps FormatVersion (or the snapshot version). A
// binary refuses a journal newer than it knows (ErrTooNew) and never
// writes an older format. A newer binary that reads an older version
// migrates on Open: it copies journal.db aside
// (journal.db.v<old>-<unix time>), rewrites the file in the new format in
// one transaction, and re-verifies the chain. Snapshots with an unknown
// version are ignored and rebuilt by replay (so an older binary replays a
// journal whose snapshots seal runs). Version 1 is the first format, so
// no migration exists yet.
//
// Fields added within version 1, all omitempty, so what was written before
// them decodes to the same value and re-encodes to the same bytes (old
// events keep their hashes, old snapshots still equal a replay):
//
//	checkpoint "fs"  Files: array of {"p" path, "s" status A|M|D|T,
//	                 "a" lines added, "d" lines deleted, "b" binary},
//	                 sorted by path, at most core.MaxCheckpointFiles
//	checkpoint "mf"  MoreFiles: how many changed files Files leaves out
//	checkpoint "nd"  Node: the subagent node of a child-scope checkpoint
//	operation  "tg"  Target: the checkpoint a rollback restored, when it
//	                 is not its run's own (a node's or a mark's)
//	receipt    "ck"  Checkpoint: the checkpoint a checkpoint.capture took
//	operation  "dy"  Dirty: that rollback left the workspace different
//	                 from its run's checkpoint
//	operation  "mk"  Marks: how many marks the thread had when it started
//
// A binary that predates a field skips it; its Verify then finds a
// snapshot written by a newer binary unequal to its own replay (the field
// is missing from the replay) and Repair rebuilds the journal with its
// own snapshot, which costs a replay, never an event.
//
// # Concurrency
//
// All methods are safe for concurrent use. Read, Verify and Export work
// in chunks copied out of short read transactions, so a long read never
// holds up appends; a helper goroutine of the call copies and hashes the
// next chunk while the caller's fn consumes the current one, and the call
// waits for it before returning. Close waits for queued appends and in-flight reads
// and snapshots, then closes bbolt.
package store
