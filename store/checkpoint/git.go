package checkpoint

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Options bound and configure a Manager. Zero values take the defaults.
type Options struct {
	// Git is the git binary; "" finds "git" on PATH.
	Git string
	// CaptureTimeout bounds one Capture (default 30s). Past it the git
	// process group is killed and Capture returns a *BoundError.
	CaptureTimeout time.Duration
	// RestoreTimeout bounds one Restore or AddWorktree (default 10m). A
	// restore stopped midway is finished by running it again.
	RestoreTimeout time.Duration
	// MaxFiles bounds the files one capture may hold (default 200,000).
	MaxFiles int64
	// MaxBytes bounds the changed content one capture may hash into the
	// repository (default 2 GiB).
	MaxBytes int64
	// MaxPatchBytes bounds the unified diff text Diff returns (default
	// 8 MiB); the stats always cover every file.
	MaxPatchBytes int
	// PackAfter is how many loose objects a shadow repository may hold
	// before a capture packs them (default DefaultPackAfter; pack.go).
	PackAfter int
}

// Defaults for Options.
const (
	DefaultCaptureTimeout = 30 * time.Second
	DefaultRestoreTimeout = 10 * time.Minute
	DefaultMaxFiles       = 200_000
	DefaultMaxBytes       = 2 << 30
	DefaultMaxPatchBytes  = 8 << 20
)

// Manager captures, diffs and restores workspace checkpoints. It is safe
// for concurrent use: operations on one workspace are serialized, those on
// different workspaces run in parallel.
type Manager struct {
	stateDir string
	opts     Options

	mu    sync.Mutex
	locks map[string]*wsLock // canonical workspace path -> its lock
	// filters are the filter-disabling settings of each repository
	// (safegit.go), by command directory and environment.
	filterMu sync.Mutex
	filters  map[string]*filterSet
	sweep    sync.Once // temporary and kept indexes left by a crash or restart are removed once
	// resolved remembers what each workspace path resolved to (an
	// immutable *ws), checked with a stat on every use.
	resolved map[string]*ws
	// What captures remember between calls (tips.go), by tipKey: each
	// thread's tip and the index its last checkpoint was written from;
	// and by git dir, the HEAD commit git last showed us.
	tips  map[string]tip
	kept  map[string]keptIndex
	heads map[string]string
	// gitErr is whether the git binary can be found, looked up once.
	gitOnce sync.Once
	gitErr  error
}

// gitFound reports ErrNoGit when the git binary cannot be found (a
// workspace's pinned repository means no git call may come first to
// tell).
func (m *Manager) gitFound() error {
	m.gitOnce.Do(func() {
		if _, err := exec.LookPath(m.opts.Git); err != nil {
			m.gitErr = errors.Join(ErrNoGit, err)
		}
	})
	return m.gitErr
}

// wsLock is a workspace's lock: a one-slot channel, so waiting for it
// can give up when the caller's context ends.
type wsLock struct {
	slot chan struct{}
	refs int // callers holding or waiting; guarded by Manager.mu
}

// New returns a Manager keeping shadow repositories and temporary indexes
// under stateDir/checkpoints. It does no I/O; the directories are made on
// first use.
func New(stateDir string, opts Options) *Manager {
	if opts.Git == "" {
		opts.Git = "git"
	}
	if opts.CaptureTimeout <= 0 {
		opts.CaptureTimeout = DefaultCaptureTimeout
	}
	if opts.RestoreTimeout <= 0 {
		opts.RestoreTimeout = DefaultRestoreTimeout
	}
	if opts.MaxFiles <= 0 {
		opts.MaxFiles = DefaultMaxFiles
	}
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = DefaultMaxBytes
	}
	if opts.MaxPatchBytes <= 0 {
		opts.MaxPatchBytes = DefaultMaxPatchBytes
	}
	if opts.PackAfter <= 0 {
		opts.PackAfter = DefaultPackAfter
	}
	return &Manager{stateDir: stateDir, opts: opts, locks: map[string]*wsLock{}, resolved: map[string]*ws{},
		tips: map[string]tip{}, kept: map[string]keptIndex{}, heads: map[string]string{}}
}

// lock serializes operations on one workspace path. It returns the
// unlock, or the context's error if ctx ends first.
func (m *Manager) lock(ctx context.Context, path string) (func(), error) {
	m.mu.Lock()
	l := m.locks[path]
	if l == nil {
		l = &wsLock{slot: make(chan struct{}, 1)}
		m.locks[path] = l
	}
	l.refs++
	m.mu.Unlock()
	release := func() {
		m.mu.Lock()
		if l.refs--; l.refs == 0 {
			delete(m.locks, path)
		}
		m.mu.Unlock()
	}
	select {
	case l.slot <- struct{}{}:
		return func() { <-l.slot; release() }, nil
	case <-ctx.Done():
		release()
		return nil, ctx.Err()
	}
}

// gitConfig is passed to every git command. core.fsync makes objects,
// pack indexes and refs durable before git reports success, so a crash
// never leaves an empty ref or one naming a missing object (see
// objects.go for how a capture's objects reach the repository). The rest keeps our
// temporary indexes self-contained and our commands free of side effects:
// no split index (it would write sharedindex files into the user's .git),
// no sparse index, no automatic gc or maintenance inside a bounded
// capture, no signing prompt, paths printed verbatim.
var gitConfig = []string{
	"-c", "core.fsync=objects,reference",
	"-c", "core.fsyncMethod=fsync",
	"-c", "core.splitIndex=false",
	"-c", "index.sparse=false",
	"-c", "gc.auto=0",
	"-c", "maintenance.auto=false",
	"-c", "commit.gpgSign=false",
	"-c", "core.quotePath=false",
}

// keepEnv are the GIT_ variables of our own environment that pass through;
// every other GIT_ variable (GIT_DIR, GIT_INDEX_FILE, GIT_CONFIG_PARAMETERS
// from a surrounding git alias or hook, ...) would redirect our commands.
var keepEnv = map[string]bool{
	"GIT_EXEC_PATH": true, "GIT_CONFIG_GLOBAL": true, "GIT_CONFIG_SYSTEM": true,
	"GIT_CONFIG_NOSYSTEM": true, "GIT_CEILING_DIRECTORIES": true,
}

var baseEnv = sync.OnceValue(func() []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "GIT_") && !keepEnv[name] || name == "LC_ALL" || name == "LANGUAGE" {
			continue
		}
		env = append(env, kv)
	}
	return append(env,
		"LC_ALL=C", // stable messages to match on
		"GIT_TERMINAL_PROMPT=0",
		"GIT_OPTIONAL_LOCKS=0", // status must not refresh (write) anyone's index
		"GIT_LITERAL_PATHSPECS=1",
		"GIT_NO_REPLACE_OBJECTS=1",
		"GIT_AUTHOR_NAME=nexus", "GIT_AUTHOR_EMAIL=nexus@localhost",
		"GIT_COMMITTER_NAME=nexus", "GIT_COMMITTER_EMAIL=nexus@localhost",
	)
})

// cmd is one git invocation.
type cmd struct {
	op    string    // for errors: "capture", "restore", ...
	dir   string    // working directory
	env   []string  // GIT_DIR, GIT_WORK_TREE, GIT_INDEX_FILE as needed
	stdin io.Reader // nil: /dev/null
	args  []string
}

// errStop, returned by a scan callback, ends the scan and kills git.
var errStop = errors.New("stop")

// run runs git and returns its standard output.
func (m *Manager) run(ctx context.Context, c cmd) ([]byte, error) {
	var out bytes.Buffer
	err := m.exec(ctx, c, func(r io.Reader) error {
		_, err := out.ReadFrom(r)
		return err
	})
	return out.Bytes(), err
}

// scan runs git and calls fn with each NUL-terminated record of its
// output (without the NUL). fn returning an error stops git; errStop ends
// the scan without an error.
func (m *Manager) scan(ctx context.Context, c cmd, fn func(rec []byte) error) error {
	return m.exec(ctx, c, func(r io.Reader) error {
		s := bufio.NewScanner(r)
		s.Buffer(make([]byte, 64<<10), 1<<20)
		s.Split(splitNUL)
		for s.Scan() {
			if err := fn(s.Bytes()); err != nil {
				return err
			}
		}
		return s.Err()
	})
}

// exec runs git in its own process group with read consuming its stdout.
// On context end, or when read fails, the whole group is killed (git
// may run filters or hooks as children) and reaped.
func (m *Manager) exec(ctx context.Context, c cmd, read func(io.Reader) error) error {
	off, err := m.filterOff(ctx, c)
	if err != nil {
		return err
	}
	args := append(append(append(append([]string(nil), neutralConfig...), off...), gitConfig...), c.args...)
	x := exec.CommandContext(ctx, m.opts.Git, args...)
	x.Dir = c.dir
	x.Env = append(append(append([]string(nil), baseEnv()...), neutralEnv...), c.env...)
	x.Stdin = c.stdin
	stderr := &tailBuffer{max: 8 << 10}
	x.Stderr = stderr
	x.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	x.Cancel = func() error { return syscall.Kill(-x.Process.Pid, syscall.SIGKILL) }
	x.WaitDelay = 2 * time.Second
	stdout, err := x.StdoutPipe()
	if err != nil {
		return err
	}
	if err := x.Start(); err != nil {
		if errors.Is(err, exec.ErrNotFound) || errors.Is(err, os.ErrNotExist) || errors.Is(err, os.ErrPermission) {
			return errors.Join(ErrNoGit, err)
		}
		return err
	}
	rerr := read(stdout)
	if rerr != nil {
		// Stop git: it may be blocked writing output nobody reads.
		_ = syscall.Kill(-x.Process.Pid, syscall.SIGKILL)
		_, _ = io.Copy(io.Discard, stdout)
	}
	werr := x.Wait()
	if cerr := ctx.Err(); cerr != nil {
		return cerr
	}
	if rerr != nil {
		if rerr == errStop {
			return nil
		}
		return rerr
	}
	if werr != nil {
		return &GitError{Op: c.op, Args: c.args, Stderr: stderr.String(), Err: werr}
	}
	return nil
}

func splitNUL(data []byte, atEOF bool) (int, []byte, error) {
	if i := bytes.IndexByte(data, 0); i >= 0 {
		return i + 1, data[:i], nil
	}
	if atEOF && len(data) > 0 {
		return len(data), data, nil
	}
	return 0, nil, nil
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if over := len(t.b) - t.max; over > 0 {
		t.b = append(t.b[:0], t.b[over:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string { return string(t.b) }

// exitCode is git's exit status in err, or -1.
func exitCode(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	return -1
}
