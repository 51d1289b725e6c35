// Package workers runs plan steps of the built-in agent in child
// processes (`nexus worker`) that keep nothing between steps but the
// nonces of the tokens they accepted, and holds the host side that starts,
// reuses and kills them (Pool). docs/ARCHITECTURE.md ("Side effects")
// places it among the host's executors; this file is the manual.
//
// workers imports core (for the side-effect classes), the standard
// library, github.com/creack/pty and github.com/zeebo/blake3; never
// store, providers, tui or themes (internal/layout/deps_test.go checks).
// The kernel's side (the built-in agent) calls Pool.Execute; only
// internal/host wires a Pool, and internal/cli runs the worker process
// (`nexus worker`, RunProcess).
//
// # Wire
//
// JSON-RPC 2.0 over the worker's stdin and stdout, one JSON object per
// line (no batches), at most MaxFrame bytes a line. The worker's stderr
// is for its last words only; the pool keeps its last 2 KiB for the
// "worker died" message.
//
// Host -> worker, request (has an id; the response comes when the step
// ends, so several may be outstanding):
//
//	{"jsonrpc":"2.0","id":7,"method":"execute","params":{
//	  "task_id":"t3f9a2c/1/a1/n4","step":2,"action":"write_file",
//	  "args":{"path":"notes.txt","content":"hello\n"},
//	  "capability":"v2.<claims>.<mac>","timeout_ms":600000}}
//
// Host -> worker, notification (no id; an id gets {"cancelled":N} back):
//
//	{"jsonrpc":"2.0","method":"cancel","params":{"task_id":"...","reason":"user interrupt"}}
//
// Worker -> host, notifications while a step runs, in order:
//
//	{"jsonrpc":"2.0","method":"checkpoint","params":{"task_id":"...","step":2,
//	  "artifacts":{"pgid":4242}}}                         run_command started
//	  "artifacts":{"chunk":"line of output\n"}            run_command output, as it comes
//	  "artifacts":{"note":"output passed 1048576 bytes..."}
//	  "artifacts":{"path":"notes.txt","blake3":"<hex>"}   a write is durable
//
// Worker -> host, the response to execute:
//
//	{"jsonrpc":"2.0","id":7,"result":{"task_id":"...","step":2,"status":"ok",
//	  "output":"wrote 6 bytes to notes.txt","path":"notes.txt","blake3":"<hex>",
//	  "metrics":{"duration_ms":1,"bytes":6}}}
//
// status is ok, error (attempted and failed, including a command that
// exited non-zero and edit_file's not-found or ambiguous old text),
// refused (token or path confinement; nothing was touched), cancelled or
// timeout. error carries the reason. exit_code is set by run_command
// (128+N when signal N ended the shell), encoding "base64" by read_file
// when the content is not UTF-8, truncated when output was capped.
//
// Frames that are not JSON, lack "jsonrpc":"2.0", have a bad id, an
// unknown method, missing or malformed params (unknown fields are
// refused, so a typo such as "timeout" is caught) get a JSON-RPC error
// response (-32700, -32600, -32601, -32602) with id null when the id is
// unknown; the worker never crashes on input (FuzzFrame). An execute sent
// as a notification is answered with an error with id null, although
// JSON-RPC says not to answer notifications: silence would hang the host.
//
// # Actions
//
//   - read_file {path}: output is the content; at most 8 MiB (an error
//     above, naming the size and the limit).
//   - write_file {path, content}: atomic (temp file in the same directory,
//     fsync, rename, fsync of the directory); missing parent directories
//     are created; an existing file keeps its mode; a symlink inside the
//     workspace is written through. Result and checkpoint carry the
//     BLAKE3 (hex) of the content. At most 8 MiB.
//   - edit_file {path, old, new}: replaces the one exact occurrence of
//     old; with none, or several (their line numbers are listed), it
//     fails and changes nothing. Written like write_file.
//   - list_dir {path?}: entry names sorted bytewise, one a line,
//     directories with a trailing "/"; "." by default.
//   - search {pattern, path?}: pattern is a Go regexp matched line by
//     line; output lines are "path:line:text", at most 1000 (then
//     truncated), text cut at 300 bytes. It walks path ("." by default)
//     in lexical order, skips .git directories, binary files (a NUL in
//     the first 8 KiB), files over 8 MiB, symlinks, and what the ignore
//     files say (below). A path named explicitly is searched even if
//     ignored.
//   - run_command {command, cwd?}: `/bin/sh -c COMMAND` on a new PTY
//     (160x50, no echo, no "\r\n" translation, TERM=dumb), in a new
//     session, so the shell leads its own process group (pgid = its pid,
//     reported in the first checkpoint). Its stdin is at end of file from
//     the start, so a command that reads input does not wait for a person.
//     Output streams as chunk checkpoints as it arrives (UTF-8 sequences
//     are never split between chunks); the result keeps at most 1 MiB
//     (the first and last halves, with a note of what was left out) and
//     streaming stops at 1 MiB.
//
// # Process groups
//
// When the shell exits, run_command waits up to 100 ms for the rest of
// the output, then SIGKILLs the group, so a step never leaves processes
// behind (a process that made its own session escapes this, as it
// escapes any group kill). On cancel or timeout the group gets SIGTERM,
// then SIGKILL after 2 s. The step's status is then cancelled or timeout,
// with the output so far and the exit code. When the worker's stdin
// closes (the host is closing the pool, or died) or its context ends, it
// cancels every running step the same way and exits.
//
// The pool also knows each step's pgid from its first checkpoint: if the
// worker dies mid-step, or does not answer a cancel within KillGrace+1 s,
// or misses its timeout by KillGrace+2 s, the pool SIGKILLs the worker
// and the step's group. A worker that dies under a step yields status
// error "worker died: <exit status>; its last words: <stderr>"; the next
// step gets a fresh worker.
//
// # Capability tokens
//
// Each execute carries a token from Sign: "v2." + base64url(claims) +
// "." + base64url(HMAC-SHA256). The claims are the task, step, action,
// SHA-256 of the target (the path as given, "." for a list_dir or search
// without one, or the command line for run_command; see TargetOf), a
// nonce and the expiry; the MAC covers their length-prefixed encoding
// under the per-host key. Verify names the problem: missing, malformed
// (including a token without a nonce of at least 16 characters, such as
// a v1 token), forged (MAC does not match: another key or altered
// claims), mismatch (for another task/step, action, path or command),
// expired, or lives too long. The contents of write_file and edit_file,
// the search pattern and the cwd are not bound by the token; the path
// and the workspace confine them.
//
// A token is good for one request. The pool signs each execute with a
// fresh 128-bit nonce (NewNonce); the task (the kernel's node or effect
// key) and step with the nonce name the request. A worker keeps the
// nonces it accepted, until the token's expiry plus TokenGrace, and
// refuses a nonce it has seen with ErrTokenReplayed ("capability token
// already used"), so a copied request cannot run its write or command
// twice. Only tokens that pass every other check are recorded. A worker
// remembers only its own: a token replayed to another worker of the
// same host is not caught (the key is per host, not per worker).
//
// A token's expiry may lie at most the step's timeout (timeout_ms, else
// the worker's default) plus TokenGrace (1 min) after the worker checks
// it; further is refused with ErrTokenLifetime ("capability token lives
// too long"), which also bounds the worker's memory of used tokens. A
// step's timeout is at most MaxStepTimeout (24 h): a larger timeout_ms
// is invalid params, a larger Step.Timeout ErrBadStep, so no request can
// stretch the bound to a century. The
// pool signs for the timeout plus PoolConfig.TokenTTL (30 s, at most
// TokenGrace), which leaves 30 s for a wall clock stepped back between
// signing and checking. The check happens when the step starts; a
// running step is not stopped when its token expires.
//
// The key (KeySize random bytes from NewKey, per host process) reaches a
// worker only through an inherited pipe: the pool writes it hex-encoded
// into a pipe whose read end the child gets as fd 3 (--key-fd); the
// worker reads it and closes the fd before serving, so no child of the
// worker can inherit it. It is never in an environment variable, an
// argument, a frame, the journal or a log.
//
// # Environment
//
// run_command's environment is allow-listed, not filtered: a deny-list
// of names misses AZURE_OPENAI_KEY, FOO_PASSWD or DATABASE_URL. A command
// gets only PATH, HOME, USER, LOGNAME, SHELL, LANG, LANGUAGE, LC_*, TZ,
// TMPDIR, XDG_CONFIG_HOME, XDG_CACHE_HOME, XDG_DATA_HOME,
// XDG_STATE_HOME, XDG_RUNTIME_DIR, SSL_CERT_FILE and SSL_CERT_DIR from
// the host, plus TERM=dumb, PAGER=cat, GIT_PAGER=cat and PWD set to its directory, plus what the
// user's [commands] env names (PoolConfig.CommandEnv, passed to workers
// as --env). An entry is a name (GOPATH) or a prefix with one trailing
// "*" (NODE_*); a bare "*" is refused. A name listed exactly always
// passes; one that only matches a prefix must not look like a credential
// (KEY, TOKEN, SECRET, PASS, CRED, AUTH but not AUTHOR, PRIVATE, COOKIE,
// SESSION or DSN in it, or a _URL or _URI suffix), so NODE_* does not
// pass NODE_AUTH_TOKEN. Names are case-sensitive.
//
// A worker process starts with the same allow-listed variables, the Go
// runtime's (GOGC, GOMAXPROCS, GOMEMLIMIT, GODEBUG, GOTRACEBACK, GORACE,
// GOCOVERDIR) and PoolConfig.Env; it filters again for each command, so
// those reach a command only when allow-listed too.
//
// # Path confinement
//
// Every path is relative to the workspace given by --workspace (an
// absolute path is accepted only inside it). Refused, with status
// refused and a message saying which rule: a path that leaves the
// workspace through "..", an absolute path outside it, a NUL byte, a
// symlink anywhere on the path that resolves outside (resolved with
// filepath.EvalSymlinks on the longest existing prefix, so a new file is
// judged by its parent), and a symlink whose target does not exist.
// Files are then opened through an os.Root on the workspace, which also
// refuses an escape swapped in between the check and the use.
// run_command's cwd is confined the same way; the command itself is not
// (it is a shell): the approval policy governs it.
//
// Two more rules, checked on the resolved path. write_file and edit_file
// refuse any path with a .git component (any case): a repository's
// config, hooks and attributes name programs git runs, and nexus runs git
// on the workspace, so a write there would turn a write approval into
// command execution; a new .git under the workspace is refused the same
// way. And every step refuses the directories given with --deny (the host
// passes its state dir: journal, socket, checkpoints), even when they lie
// inside the workspace, as when nexus runs in $HOME; search skips them.
//
// # Ignore files
//
// search reads .git/info/exclude and every .gitignore on its way;
// deeper files take precedence and, within a file, the last matching
// line wins. Supported: blank and # comment lines; \# and \! escapes;
// trailing spaces trimmed unless escaped; CRLF line ends; `*` and `?`
// (not matching /); `**` as a leading `**/`, a trailing `/**` or a
// middle `/**/`; bracket classes [abc], [a-z], [!a-z]; `\x` for a
// literal x; a leading or middle `/` anchoring to the file's directory;
// a trailing `/` for directories only; `!` negation (a file under an
// ignored directory cannot be re-included, as in git). Not supported:
// POSIX classes such as [[:alpha:]], core.excludesFile and the global
// ignore file, .gitattributes, and git's index (tracked files that match
// an ignore pattern are skipped too).
//
// # Goroutines
//
// Worker (Serve): the calling goroutine waits; one goroutine reads
// frames and starts each execute on its own goroutine (steps run
// concurrently, up to Config.MaxSteps, and each task's steps can be
// cancelled together); run_command adds a reader of the PTY and a waiter
// of the shell. Frames are written whole under a mutex. Serve returns
// after every step goroutine ended.
//
// Host (Pool): Execute may be called from any goroutine; it blocks for
// the step and holds one worker for it, so Max bounds both processes and
// concurrent steps. Each worker has one reader goroutine, which calls the
// step's onCheckpoint in order, never after Execute returned (it must
// not block for long: hand the checkpoint to a channel or the Runner),
// and reaps the process when its
// stdout ends. Warm workers are kept per workspace; when the pool is full
// an idle worker of another workspace is stopped to make room. Close
// stops and reaps every worker.
//
// Execute returns an error only when the step did not run (invalid step,
// pool closed, ctx done while waiting for a worker, no worker could
// start); every outcome of a step that was handed to a worker is a
// Result. Class gives each action's side-effect class for the kernel's
// two-phase effects: reads pure, write_file idempotent (the recorded
// BLAKE3 tells whether it already happened), edit_file reversible,
// run_command irreversible.
package workers
