// Package api is the host/client protocol on the state dir's unix socket.
//
// The process that owns the state dir (the host: `nexus serve`, or the
// first `nexus` that finds no host) serves its core.Backend — the Runner —
// with a Server on a socket in the state dir. Every other `nexus`
// invocation dials it with a Client, which implements core.Backend too, so
// the TUI and the CLI do not care where the kernel runs: while `nexus send`
// waits on a slow run, `nexus send --mode steer` from a second terminal
// steers it, and the TUI can attach to `nexus serve`.
//
// api imports only the standard library and core. internal/host serves
// it and internal/cli dials it; tui and the CLI see it only as a
// core.Backend.
//
// # Socket
//
// Listen creates the socket with mode 0600; the socket file is never
// reachable with a wider mode (it is bound in a private 0700 directory,
// chmodded, then renamed into place). An existing socket that answers is
// a live host (ErrHostRunning); one that refuses connections was left by a
// killed host and is replaced; anything else at the path is refused
// (ErrNotSocket). Listen is not a lock: call it while holding the state
// dir's lock. Closing the listener removes the socket.
//
// # Who may connect
//
// A host serves only its own user, and a client talks only to a host of
// its own user. On Linux both ends ask the kernel who is at the other
// end (SO_PEERCRED: the peer's uid and pid when it connected or
// listened) and compare the uid with their own effective uid, with no
// exception for root (peer.go):
//
//   - the Server closes a connection from another uid at once, answers
//     nothing, and logs one line naming the uid and pid (SetLog; `nexus
//     serve` logs to stderr, host.log for a background host);
//   - the Client closes a connection to a host of another uid before it
//     sends anything and returns a *UIDError ("the host on DIR runs as
//     uid N, not you"); Listen's probe reports such a host as
//     ErrHostRunning without asking it anything.
//
// On other platforms (build tag !linux, peer_other.go) nothing is asked
// and nobody is refused for their uid: the socket's 0600 mode, inside the
// state dir's 0700, is then what keeps other users out. A connection that
// is not a unix socket (a listener other than Listen's) has no uid and is
// not checked either.
//
// # Wire protocol
//
// JSON-RPC 2.0, one JSON object per line (NDJSON, "\n"-terminated, UTF-8).
// Requests must carry an id (a number or a string) and "jsonrpc":"2.0";
// notifications from clients and batches are refused. Blank lines are
// ignored. Params are decoded strictly: an unknown field is refused, so a
// client newer than its host hears about it instead of being ignored.
//
//	method       params                              result
//	hello        (none)                              HostInfo {pid, version, stateDir}
//	submit       core.Command                        core.Receipt
//	state        (none)                              core.State (call Reindex after decoding)
//	subscribe    {"from": uint64}                    {"state": core.State} (state only when from == 0)
//	             (+ "threads", "brief", "watch": a StateQuery)
//	term.attach  {"thread": string}                  {} then "term" notifications
//	term.input   {"thread": string, "data": base64}  {}
//	term.resize  {"thread": string, "cols", "rows"}  {}
//
// A client uses hello to check that the host answers (Dial does, within
// one second by default: docs/ARCHITECTURE.md, "Host and clients"). A
// subscribe from 0 answered without its state is an error on the Client,
// never a core.Subscription with a nil State.
//
// After the subscribe result the server sends, on the same connection,
//
//	{"jsonrpc":"2.0","method":"event","params":core.Event}
//
// for every event (journaled events in seq order with no gap and no
// duplicate, plus live text deltas with seq 0), and finally
//
//	{"jsonrpc":"2.0","method":"end","params":{"error":"...","reason":"..."}}
//
// where reason is "lagged" (the reader fell behind: resubscribe from the
// last seq seen; core.ErrLagged on the client), "stopped" (the host is
// shutting down; ErrHostGone on the client) or "error". A subscribed
// connection is dedicated to its subscription: a request sent on it is
// answered with -32600, and closing it ends the subscription.
//
// # Terminals
//
// The term.* methods serve core.Terminals (the live PTY of a shell
// thread) when the host's backend implements it; otherwise they are
// answered -32601 ("this host serves no terminals"). After the
// term.attach result the connection is dedicated to the feed, like a
// subscription:
//
//	{"jsonrpc":"2.0","method":"term","params":core.TermChunk}
//
// with TermChunk {"reset":bool,"data":base64,"cols":int,"rows":int}
// (omitted when zero; cols and rows come with a Reset; the first chunk is
// always one), and finally "end" with reason "exited" (the process
// exited; core.ErrTerminalExited on the client), "stopped" or "error".
// The host coalesces what a slow reader has not taken, and sends a Reset
// instead of bytes that fell out of its buffer, so a feed never lags on
// the host's side; the Client holds 16 chunks and ends a feed whose reader
// leaves them untaken for 5 s with core.ErrLagged (attach again).
// term.input and term.resize go on the shared request connection. None of
// it is journaled: terminal I/O is live, as in tmux. A thread the state
// does not know is refused input (-32602); one with no live PTY is -32000
// with data {"kind":"no_terminal"} (core.ErrNoTerminal on the client);
// input over core.MaxTermInput and sizes outside 1..1000 are refused
// input.
//
// Errors:
//
//	-32700  parse error: not JSON, or not valid UTF-8
//	-32600  invalid request: no id, bad id, wrong version, no method, a
//	        batch, a request on a subscribed connection, or a line over
//	        the line limit or not ended in time (those two are answered
//	        with id null and the connection is then closed: "Limits")
//	-32601  unknown method
//	-32602  refused input: a *core.InputError from the backend, or params
//	        that do not decode; data is {"kind":"input"}. The Client turns
//	        it back into *core.InputError with the same message, so callers
//	        tell "refused input" (exit 1, nothing journaled) from "host gone".
//	-32000  the backend failed; the message says why (*Error on the client,
//	        or, when data.kind is "no_terminal" or "terminal_exited",
//	        core.ErrNoTerminal or core.ErrTerminalExited itself); with
//	        data.kind "host_full" and id null, before any request, the
//	        host refused the connection (ErrHostFull: "Limits")
//
// # Limits
//
// What a client can cost the host is bounded (Limits, set with
// Server.SetLimits; tests use small values):
//
//   - Connections: at most MaxConns (DefaultMaxConns, 256) are open at
//     once. One more gets the host_full error line and is closed; the
//     host logs one line per spell of such refusals. Connections refused
//     for their uid, or by CloseIfIdle, do not count.
//   - Line length: a request line may be MaxLineBytes long
//     (MaxRequestBytes: 6 × core.MaxTextBytes + 1 MiB, about 2.5 MiB, so
//     a message at the text limit fits even when every byte is escaped as
//     \u00XX; a term.input at core.MaxTermInput, 64 KiB, is 87,384 bytes
//     of base64, well within it). The server stops reading a longer line
//     at the limit, answers -32600 and closes the connection. The Client
//     refuses to send a longer request (*core.InputError).
//   - Time to end a line: once the first byte of a line is in, its
//     newline must follow within LineTimeout (DefaultLineTimeout, 30 s),
//     however the bytes trickle in; else -32600 and the connection is
//     closed. A connection idle between lines is never timed out: a UI
//     subscribed for hours keeps its connection.
//
// So a connection holds at most one unfinished line (about MaxLineBytes)
// plus a 64 KiB read buffer, and that for at most LineTimeout; all of
// them together about MaxConns times that (some 660 MiB at the defaults,
// for 30 s).
// A client that takes no line for 10 s is dropped ("Server behaviour").
// Lines the client reads may be MaxResponseBytes long (256 MiB: a whole
// State carries every transcript; a terminal chunk is at most the host's
// 1 MiB ring, 1.4 MB in base64).
//
// A state request (and a subscribe's starting state) may be narrowed by a
// StateQuery, {"threads": [...]} or {"brief": true}: every entity travels,
// but nodes and run replies only for the threads named (none when brief).
// The command line asks for what it shows (a thread list is brief, thread
// show asks for its thread, send for the threads of its runs), so one
// thread's long outputs never make another command's reply too large.
//
// A subscribe with {"watch": true} narrows its events too (watch.go): the
// UI names the threads it shows, and other threads' live deltas are left
// out and their text blanked in the events that still come (node.text,
// node updates; a run's reply is cut to what a notification shows), so
// seqs stay gapless and the thread list keeps every status; the starting state keeps their nodes without text. A UI
// that shows another thread subscribes again from 0 with the new set.
//
// # Server behaviour
//
// Each connection has a goroutine that handles its requests one at a time
// and is the only writer to it (that is what serializes writes), plus a
// reader goroutine that reads ahead, so a client that hangs up cancels the
// context of its call in flight. A half-closed connection counts as gone:
// keep the write side open until the answers are read. A malformed line
// gets an error response and the connection goes on. A client that takes
// no line for 10 s (writeTimeout) is disconnected; a subscriber then
// resubscribes from its last seq. Serve returns when its context ends,
// after it has sent "end" to subscribers, closed every connection (a
// reader that is stuck gets one second) and waited for every goroutine it
// started.
//
// # Goroutines and ownership
//
// Server: NewServer, then SetLimits and SetAdmin if wanted, then Serve
// once, from any goroutine; cancel its context to stop it. SetLog,
// Conns, ConnsChanged, CloseIfIdle and Refuse may be called at any time. The backend
// must be safe for concurrent use (the Runner is).
//
// Client: every method is safe for concurrent use. Requests (hello,
// submit, state, term.input, term.resize) share one connection, one
// request at a time: a caller waits its turn or until its context ends. A
// request cut short by its context abandons that connection and the next
// request dials a new one, so the Client stays usable. Each Subscribe opens a connection of its own
// and a goroutine, owned by the subscription, that delivers events on a
// buffered channel (1024 events). It ends — closing Events, after which
// Err says why — when the subscription's context ends, Close is called
// (ErrClosed), the reader leaves the buffer full for 5 s (core.ErrLagged),
// or the host stops or the connection drops (ErrHostGone). AttachTerminal
// works the same way, with its own connection and goroutine per feed. A
// dropped request connection gives an error wrapping ErrHostGone.
package api
