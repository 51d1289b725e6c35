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
// api imports only the standard library and core. main.go wires it; tui
// and the CLI see it only as a core.Backend.
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
// # Wire protocol
//
// JSON-RPC 2.0, one JSON object per line (NDJSON, "\n"-terminated, UTF-8).
// Requests must carry an id (a number or a string) and "jsonrpc":"2.0";
// notifications from clients and batches are refused. Blank lines are
// ignored. Params are decoded strictly: an unknown field is refused, so a
// client newer than its host hears about it instead of being ignored.
//
//	method     params               result
//	hello      (none)               HostInfo {pid, version, stateDir}
//	submit     core.Command         core.Receipt
//	state      (none)               core.State (call Reindex after decoding)
//	subscribe  {"from": uint64}     {"state": core.State} (state only when from == 0)
//
// A client uses hello to check that the host answers (Dial does, within
// one second by default: DESIGN.md §5).
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
// Errors:
//
//	-32700  parse error: not JSON, or not valid UTF-8
//	-32600  invalid request: no id, bad id, wrong version, no method, a
//	        batch, a request on a subscribed connection, or a line over
//	        MaxRequestBytes (that one is answered with id null and the
//	        connection is then closed)
//	-32601  unknown method
//	-32602  refused input: a *core.InputError from the backend, or params
//	        that do not decode; data is {"kind":"input"}. The Client turns
//	        it back into *core.InputError with the same message, so callers
//	        tell "refused input" (exit 1, nothing journaled) from "host gone".
//	-32000  the backend failed; the message says why (*Error on the client)
//
// Size limit: a request line may be MaxRequestBytes long (6 ×
// core.MaxTextBytes + 1 MiB, so a message at the text limit fits even when
// every byte is escaped as \u00XX). Lines the client reads may be
// MaxResponseBytes long (256 MiB: a State carries every transcript).
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
// Server: NewServer, then Serve once, from any goroutine; cancel its
// context to stop it. The backend must be safe for concurrent use (the
// Runner is).
//
// Client: every method is safe for concurrent use. Requests (hello,
// submit, state) share one connection, one request at a time: a caller
// waits its turn or until its context ends. A request cut short by its
// context abandons that connection and the next request dials a new one,
// so the Client stays usable. Each Subscribe opens a connection of its own
// and a goroutine, owned by the subscription, that delivers events on a
// buffered channel (1024 events). It ends — closing Events, after which
// Err says why — when the subscription's context ends, Close is called
// (ErrClosed), the reader leaves the buffer full for 5 s (core.ErrLagged),
// or the host stops or the connection drops (ErrHostGone). A dropped
// request connection gives an error wrapping ErrHostGone.
package api
