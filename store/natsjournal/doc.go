// Package natsjournal is the journal of nexus's team mode: core.Journal
// on a NATS JetStream stream, so the hosts of several people can share one
// project's journal.
// The bbolt journal in package store stays the default of a solo nexus;
// this one is the second implementation of the same port, and passes the
// same conformance suite (core/journaltest).
//
// Only internal/host and internal/cli may import it (the command line
// runs `nexus hub` with StartServer); core and tui never reach NATS.
// internal/layout/deps_test.go enforces that.
//
// # Why a NATS dependency
//
// A shared journal needs a server that orders appends from many writers,
// refuses a writer that did not see the last append, drops a retried
// command, keeps every acknowledged write on disk (or on a quorum of
// disks), and stores snapshots beside the log. JetStream does each of
// these with one primitive (a stream with a compare-and-swap on its
// sequence, message ids, atomic batches, an object store), and
// nats-server is a Go library that nexus can embed, so a team needs no
// service of its own to try it. github.com/nats-io/nats.go is the client;
// github.com/nats-io/nats-server/v2 the embedded server (it brings
// jwt, nkeys, highwayhash, klauspost/compress and x/crypto along). Both
// are kept to this package and the two that wire it.
//
// # Stream
//
// One stream per project, named from a project key the caller passes:
//
//	stream   NEXUS_<p>        the commits
//	bucket   NEXUS_<p>_SNAP   the snapshots (a JetStream object store)
//	subjects nexus.<p>.j.<t>  one per thread; t is "_" for a commit of
//	                          no thread or of several
//
// <p> and <t> are the key and the thread id with anything but letters,
// digits, '-' and '_' turned into '_'; a key that changed (or is longer
// than 64 bytes, or is "_") also gets '-' and 8 hex digits of its BLAKE3,
// so two keys never share a stream. Open creates the stream, or updates
// it to: file storage, no limits (MaxMsgs, MaxBytes, MaxAge none) with
// DiscardNew, so a journal is never trimmed and a full account refuses
// appends instead of dropping history; DenyDelete and DenyPurge; a
// duplicate window (Options.Duplicates, 10 minutes) for receipts;
// AllowAtomicPublish; Options.Replicas. Direct get is left off: on a
// cluster a replica may answer it before it has the last commit, and a
// journal must read what it acknowledged.
//
// # Messages
//
// One message per kernel commit (core.Commit) with events; a commit
// without events writes nothing. The body is the commit's events as a
// msgpack array of core.Event, each encoded exactly as the bbolt store
// encodes an event (msgpack under the struct tags, compact integers), so
// an event is the same bytes in both journals. Headers:
//
//	Nexus-Journal                 "1", the message format version
//	Nexus-Seq                     seq of the commit's first event
//	Nexus-Chain                   hex BLAKE3-256(chain of the message before || body),
//	                              32 zero bytes before the first message
//	Nats-Msg-Id                   the commit's command id, when it has one (the receipt)
//	Nats-Expected-Last-Sequence   the stream sequence the writer last saw
//	Nats-Batch-Id, -Sequence, -Commit   on the messages of an atomic batch
//
// The chain is per message, over the stored body, like the store's per
// event chain, so a reader verifies without re-encoding. A command id
// that a header cannot carry (control bytes, over 128 bytes) is replaced
// by "b3-" and 32 hex digits of its BLAKE3. Within one Append only the
// first commit of a command carries its id (the server refuses a batch
// naming an id twice; receipts in the projection dedupe commands anyway).
//
// # Appending
//
// Append checks that the events carry the next seqs (core.ErrSeqMismatch,
// nothing sent, when not), chains the bodies from the tail it knows and
// publishes under its lock, so appends of one Journal are serialised. It
// returns nil only after the server acknowledged every commit. The
// server fsyncs before it acknowledges only when it runs with
// sync_interval "always" (StartServer's does; on a cluster an
// acknowledgement means a quorum stored it). The journal cannot set that
// on an external server: run it with sync_interval: always, or an
// acknowledged commit can be lost with the machine's power.
//
//   - One commit is one publish with Nats-Expected-Last-Sequence: the
//     server stores it only if the stream's last sequence is the one this
//     writer saw. A second writer (another host, or a journal opened
//     earlier) that appended first makes the Append fail with ErrFenced,
//     which also matches core.ErrSeqMismatch; nothing is written and the
//     journal reloads its tail, so after the caller reloads its state
//     (core.Runner does on any failed Append) it appends at the new Last.
//   - Several commits are one atomic batch (nats-server 2.12+): the
//     messages are staged by the server under one batch id, only the
//     first carries the expected sequence, and the last commits the
//     batch; the server checks the whole batch under one lock and stores
//     all of it or none. An Append of more than Options.MaxBatch commits
//     (1000, the server's limit; the Runner appends at most a few
//     hundred) is cut into batches, each atomic.
//   - A commit whose command id is in the stream within the duplicate
//     window is dropped by the server: Append fails with ErrDuplicate and
//     the batch it was in is not written.
//   - When no acknowledgement comes (a timeout, a lost connection) the
//     outcome is unknown: the journal reads the stream's tail, and if the
//     chain hash there is the one of its last commit, the commits were
//     stored (the chain names exactly them) and Append returns nil;
//     otherwise it fails saying the commits may or may not be stored, and
//     the next Append reloads the tail first. A late arrival is then
//     fenced like a second writer's.
//
// # Atomic appends and crashes
//
// With atomic batches a crash leaves each batch whole or absent: the
// server stages a batch on disk and writes it only on its commit
// message; a server killed part-way through writing a committed batch
// completes it when it starts again. As with the bbolt store, the journal
// may then hold a batch whose caller was never acknowledged, never the
// reverse, which is why the Runner starts effects only after Append
// returns.
//
// A server older than 2.12 does not take atomic batches (the stream
// comes back without AllowAtomicPublish), and Options.Sequential turns
// them off: the commits of one Append are then published one by one,
// each with its own compare-and-swap. A failure or crash between them
// leaves a durable prefix of whole commits that Append reported as
// failed. That is safe for the Runner: each commit is one input's events,
// so no input is half recorded; after the failed Append the Runner reloads
// its state from the journal (snapshot and Read), so it continues from
// exactly the durable prefix; the commits after it are gone and their
// effects never started; a command in the prefix whose caller retries is
// answered from its receipt. What the caller is told is the part that is
// imprecise: the Runner answers every caller of the batch with an error,
// including those whose commits are in the prefix.
//
// # Reading
//
// Read takes the stream's last sequence when it starts and reads up to
// it. To start at seq from it finds the message holding it: the last
// message when from is in it, else a binary search on the Nexus-Seq
// header over messages 1..min(last, from) (message n starts at seq n or
// later), O(log n) message gets. It then streams the messages through an
// ephemeral pull consumer (acks off, memory storage, deleted when Read
// returns) that keeps up to 4096 messages asked for ahead of the checks,
// each pull at most 16 MiB (or two of the largest messages the server
// takes), and checks each: it comes in order, its headers parse, its
// chain hash is BLAKE3(the previous message's chain || its body) from the
// chain of the message before the first one read, its body decodes to
// events carrying the seqs that were due. The first that fails stops the
// Read with a *CorruptError naming its stream sequence, after every event
// before it was passed to fn. Open checks the last message the same way
// against the one before it.
//
// Like the store's Read, a Read runs in three stages, each on its own
// goroutine and a chunk (128 messages) ahead of the next: one takes the
// messages and checks their order and headers, one checks their chain
// hashes and seqs and decodes them, and fn runs on the caller's
// goroutine; so the server's work, the round trips, hashing, decoding
// and fn overlap. A stage that finds a fault passes on what came before
// it, then the error, and stops; an error of fn, or ctx cancelled, stops
// them all and is returned as it is.
//
// Bodies are decoded by the store's own event decoder (store.DecodeEvent:
// a body holds the same bytes the store holds for each event), without
// copying them: the events' strings share the buffer the client
// allocated for the message. They need no structural check first: that
// decoder refuses a length the bytes left cannot hold before it
// allocates for it, skips unknown values without recursing, and core's
// types nest a fixed depth, so a forged body costs memory only in
// proportion to its size. (msgpack's reflection decoder, used before,
// sized a slice by its declared length before reading it, so every
// length had to be checked in a pass of its own.) TestDecodeBody and
// FuzzDecodeMessage cover it.
//
// Last is the last seq this journal knows: read at Open, moved by each
// acknowledged Append, and reloaded when an Append is fenced or its
// outcome is unknown. Another writer's commits show in Read at once and
// in Last after that.
//
// # Snapshots
//
// Snapshots are objects named snapshot-<seq, 20 digits> in the project's
// bucket (the object store checks a SHA-256 digest on every read). An
// object is:
//
//	[0:8]   "nexusnsn"
//	[8:12]  uint32 snapshot version, 1
//	[12:20] uint64 seq covered
//	[20:52] chain hash of the message holding that seq (zero for seq 0)
//	[52:]   the state as store.EncodeStateWhole encodes it: msgpack
//	        under core.State's struct tags, every map's keys in byte
//	        order, so a snapshot is the same bytes as a replay to its seq
//	        (Verifier compares them); bodies of the first version's
//	        reflection encoder (keys in map order) read the same
//
// The body is self-contained: the bbolt store keeps finished runs in a
// vault and snapshots only a reference to them (core.Seal), but this
// journal has no vault, so SaveSnapshot thaws every sealed run into the
// body (a seal that cannot be read fails the snapshot rather than losing
// the history). The body is read with store.DecodeState, which checks it
// and rebuilds the derived indexes; a loaded state has no seals.
// SaveSnapshot refuses a seq past Last, writes the object, then deletes
// all but the newest SnapshotsKept (2). LoadSnapshot returns the newest
// whose digest matches, whose seq is at most Last, whose chain hash is
// the one of the message holding its seq (so it belongs to this history)
// and that decodes; else the older; else nil. It returns an error only
// when the server cannot be read.
//
// Verifier (verifier.go) checks a journal on the hub a tail at a time:
// the events after the last checked (Read's checks, and a gap fails the
// replay), and every snapshot against the replay at its seq, byte for
// byte; the crash loop runs it after every kill of a host on a hub.
//
// # What it lacks beside the store
//
// It implements core.Journal and Close, nothing more. The bbolt store
// also offers, and internal/host uses: Enqueue and Pending (a group
// commit: here each Append is its own round trip, and concurrent Appends
// wait on one lock), Stats, Verify and its Report, Export and Import,
// Repair, Dir, lazily loaded sealed runs (the vault), and a single-writer
// lock with *LockedError (here writers are fenced by the compare-and-swap
// instead of kept out). The per-thread subjects carry no guarantee yet:
// the port has one seq for the whole project, so the compare-and-swap is
// on the stream's sequence, not per subject.
//
// # Commands from anywhere
//
// A project's commands travel through a work-queue stream of their own
// (commands.go):
//
//	stream   NEXUS_<p>_CMD   work-queue retention, file storage, the
//	                         journal's replicas, duplicate window 10 min
//	subject  nexus.<p>.c     one message per command: core.Command as
//	                         JSON (the socket's encoding), Nats-Msg-Id the
//	                         command id, Nexus-Reply a core NATS inbox
//
// Remote.Submit publishes the command and waits on its inbox. The
// project's owner (the host holding its lease, internal/host) runs
// ServeCommands: it pulls the stream through the durable consumer
// "owner" one command at a time (MaxAckPending 1, so commands run in the
// order they were queued), decodes it strictly (an unknown field or no
// id is refused input), submits it to its Runner, publishes the outcome
// on Nexus-Reply ({"receipt": ...}, or {"error": ..., "input": true}
// for refused input) once the events are durable, and only then acks
// (a double ack, so the server has it). An owner that stops before the
// ack leaves the message to the next owner (after AckWait, 30 s, or at
// once on a Nak when it is stopping); the Runner answers a command id it
// has journaled with the first receipt, so nothing runs twice. The
// stream's duplicate window drops a resent command id; Submit then reads
// the receipt from the journal. When no host holds the lease, Submit
// returns a *NoOwnerError (ErrNoOwner) at once: the command stays queued
// and runs when a host takes the project. While it waits for an owner's
// answer it looks again every 2 s whether the owner is still there, and
// after a minute without an answer it returns a *NoAnswerError (the
// command stays queued). Both match core.ErrQueued. An owner whose
// kernel does not decide a command within 15 s leaves it unacked (a Nak
// with a second's delay) rather than answering an error: the command may
// still be decided, and when it comes again its id answers with the
// first receipt.
// Paths in a command (a workspace, a worktree) are the owner's machine's.
//
// # One view
//
// Each project is one host's at a time, so the team's one view is the
// hub's projects grouped by the host holding each. Projects (owner.go)
// lists the journal streams (their description names the project) and
// each one's lease holder (LeaseHolder): the lease is the host's
// presence, a KV entry with a TTL that lives while the host renews it.
// A holder names its machine, state dir and pid, and ends in " #id" (the
// state dir's random id, which lets a restarted host take its own dead
// lease at once); HolderName drops the id for people to read.
// Remote is a project seen from any machine, a core.Backend: State
// replays its snapshot and journal (read-only), Subscribe follows the
// journal and Submit queues commands. The UI and every command run on it
// unchanged (`nexus --project P`).
//
// Subscribe holds a core NATS subscription to the journal's subjects
// (nexus.<p>.j.>) as a wake-up: each new commit wakes it and it Reads
// what is new, checked as every Read is, so it never polls. A commit's
// message can reach it before the stream has stored it (the read then
// finds nothing), so the owner also sends a tail notice on the live
// subject once an append returned (PublishTail: header Nexus-Tail, the
// last durable seq, no body); a subscriber behind a notice reads again
// (three times at most without progress, then it waits for the next). Live text
// deltas (core.EvNodeDelta, seq 0) come from the owner on nexus.<p>.live
// (PublishLive: the event as JSON, never stored) with a Nexus-After
// header, the seq of the last journaled event the owner had sent before
// it. A subscriber that has already delivered events past that seq drops
// the delta, whose text the journal may then carry: the UI's bridge
// joins deltas to journaled text only in the order the host made them,
// and a late delta would show text twice. A subscriber that falls
// behind loses deltas (256 are held), never events.
//
// # Terminals
//
// A Remote is core.Terminals too (terms.go, terms_remote.go): the owner
// runs ServeTerminals on its host's terminals. Watching goes on subjects
// outside nexus.>, which a viewer may publish to; typing and resizing
// stay under nexus.>, which a viewer may not:
//
//	nexusw.<p>.term.attach      request {"thread"}: (re)start the thread's
//	                            feed, a fresh Reset first; answer {} or
//	                            {"error", "kind": "no_terminal"}
//	nexusw.<p>.term.keep        {"thread"}: keep the feed going another 30 s
//	nexusw.<p>.term.out.<t>     the feed: {"chunk": core.TermChunk} (Data
//	                            cut to 256 KiB a message), {"end": "exited"}
//	nexus.<p>.term.in           request {"thread", "data"}: keys typed
//	nexus.<p>.term.size         request {"thread", "cols", "rows"}
//
// One feed per thread is shared by every watcher; an attach restarts it
// (everyone redraws from the Reset). A watcher sends a keep-alive every
// 10 s; a feed nobody kept alive for 30 s stops. A watcher whose queue
// (256 messages) overflowed asks for a fresh Reset and drops the bytes
// before it. Nothing of a terminal is stored.
//
// # Diffs
//
// A thread's checkpoints are git objects on its owner's disk, so a
// Remote's Diff asks the owner, which runs ServeDiffs with its own
// `nexus diff` (diffs.go). The request goes outside nexus.>, so a
// viewer may ask (it only reads):
//
//	nexusw.<p>.diff             request DiffRequest {"thread", "run",
//	                            "from", "to", "stat"}: the answer's body is
//	                            the text as it is, or its Nexus-Diff-Error
//	                            header the error (one line, 4 KiB at most)
//
// The owner makes two diffs at a time, each within 30 s; an answer over
// 768 KiB is cut at a line's end and says so. With no owner up the
// request has no responder and Diff's error (ErrNoDiffHost) says the
// diffs show once a host holds the project. A host that took a project
// over has none of the checkpoints its predecessor made on its own disk:
// their diffs fail there, naming the missing checkpoint.
//
// # Concurrency
//
// All methods are safe for concurrent use. Appends are serialised by the
// journal's lock; Read, SaveSnapshot and LoadSnapshot run beside them.
// Close waits for calls in progress and makes later ones fail with
// ErrClosed; it does not close the connection, which the caller owns.
//
// # Embedded server, users and viewers
//
// StartServer runs nats-server in the process with JetStream, its file
// storage in a dir, every write fsynced (SyncAlways), listening on
// 127.0.0.1 and a random port unless told otherwise, logging nothing
// unless asked. The tests run on it, and so does `nexus hub`, which
// gives it three users (ServerOptions.Users) whose credentials it makes
// once in its dir with EnsureCredentials: host.creds, for the hosts;
// sender.creds, for teammates who steer agents from afar; and
// viewer.creds, read only. A credentials file is one line "user:password"
// (a 256-bit random password), mode 0600; ReadCredentials refuses one
// that others may read. A viewer may publish nothing on the journals'
// subjects, the object and KV stores, and none of the JetStream API calls
// that create, change or delete a stream or a message
// (viewerPermissions): it opens a journal with Options.ReadOnly, which
// looks the stream up instead of creating it, reads every event and
// snapshot, and its appends are refused by the server
// (TestViewerReadsAndCannotWrite). A sender may also publish a
// project's commands (nexus.<p>.c) and terminal keys and sizes
// (nexus.<p>.term.>), never a journal's subjects, the live text or a
// store (senderPermissions): the owner decides its commands as it does
// any, and it can neither write history nor take a lease
// (TestSenderSendsAndCannotWrite); a host refuses to start on a sender's
// or a viewer's credentials, saying so. With TLSCert and TLSKey clients must
// connect over TLS (Connect's CA names the authority of a certificate
// of the hub's own); ClusterOptions join three hubs into a cluster, their
// routes in clear text, or on mutual TLS with ClusterOptions.TLSCert,
// TLSKey and CA (each hub checks the hub it dials and the hub that dials
// it against the CA, as nats-server's own cluster TLS does).
//
// Connect dials a hub with a credentials file, reconnecting without end
// and buffering nothing while the hub is away, and silences the client
// library's own error printing, which would draw over a full-screen UI.
//
// Linking the server into the nexus binary costs a solo nexus about
// 1.5 ms of package initialisation and 180 KB of heap at start (GODEBUG
// inittrace); no goroutine or socket of it exists unless `nexus hub`
// runs.
package natsjournal
