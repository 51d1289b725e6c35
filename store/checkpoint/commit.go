package checkpoint

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
)

// This file writes a capture's commit and makes it visible: the commit
// object is written by the package, published with the capture's other
// objects (objects.go), and its refs moved by one update-ref
// transaction. Its parent and base come from tips.go.

// noBase marks Checkpoint.Changed while commit has neither a parent nor
// a base to count changes against.
const noBase = -2

// commitChecked commits (see commit) with rt and refs, the tip from memory
// or from git. A remembered tip may be stale, another process having
// moved it: the ref transaction then refuses it, and the tip is looked
// up and the commit made again. The thread's tip is remembered after.
func (m *Manager) commitChecked(ctx context.Context, w *ws, q *quarantine, rt *refTx, thread, scope, tree string, refs refState, counted countedChanges) (Checkpoint, error) {
	cp, err := m.commit(ctx, w, q, rt, thread, scope, tree, refs, counted)
	if err != nil && refs.remembered && ctx.Err() == nil {
		m.forgetTip(w, thread)
		if fresh, lerr := m.readRefs(ctx, w, thread); lerr == nil && fresh.tip != refs.tip {
			again := m.startRefTx(ctx, w, q)
			defer again.abort()
			cp, err = m.commit(ctx, w, q, again, thread, scope, tree, fresh, counted)
		}
	}
	if err != nil {
		m.forgetTip(w, thread)
		return Checkpoint{}, err
	}
	m.rememberTip(w, thread, tip{id: cp.Commit, tree: tree, scope: scope, previous: cp.Parent})
	return cp, nil
}

// commit writes the checkpoint commit for tree, publishes the
// quarantined objects and moves the scope ref and the tip in the
// transaction rt, the tip only if it still is refs.tip. Changed is noBase
// when there is neither a parent nor a base, and -1 when counting
// failed: the checkpoint exists regardless.
func (m *Manager) commit(ctx context.Context, w *ws, q *quarantine, rt *refTx, thread, scope, tree string, refs refState, counted countedChanges) (Checkpoint, error) {
	base, t := refs.base, refs.tip
	// The parent is the thread's tip, unless the tip is this very scope
	// (a capture redone after a crash): then the tip's own parent.
	parent, parentTree := "", ""
	if t.tree != "" {
		parent, parentTree = t.id, t.tree
		if t.scope == scope {
			parent, parentTree = t.previous, ""
		}
	}
	var parents []string
	if parent != "" {
		parents = append(parents, parent)
	}
	if base != "" && base != parent {
		parents = append(parents, base)
	}
	commit, err := q.writeCommit(w.format, tree, parents, commitMessage(thread, scope, parent, base), time.Now())
	if err != nil {
		return Checkpoint{}, err
	}
	cp := Checkpoint{Ref: RefName(thread, scope), Commit: commit, Tree: tree, Parent: parent, Base: base, Changed: noBase}

	// One transaction moves both refs; the tip only if nobody moved it.
	var tx strings.Builder
	fmt.Fprintf(&tx, "update %s %s\n", cp.Ref, cp.Commit)
	if t.id == "" {
		fmt.Fprintf(&tx, "create %s %s\n", tipName(thread), cp.Commit)
	} else {
		fmt.Fprintf(&tx, "update %s %s %s\n", tipName(thread), cp.Commit, t.id)
	}
	rt.write(tx.String() + "prepare\n")
	if err = rt.finish(m.publish(ctx, w, q)); err != nil {
		return cp, err
	}
	// git fsyncs a ref's file (core.fsync) but not the directory that
	// names it: without this a power cut could lose a new ref that the
	// journal already calls ready.
	if err = syncRefDirs(w.common, thread, scope); err != nil {
		return cp, fmt.Errorf("checkpoint: fsync the refs of %s: %w", thread, err)
	}
	cp.Changed = m.changes(ctx, w, parent, parentTree, base, tree, counted)
	return cp, nil
}

// refTx is a capture's `update-ref --stdin` transaction. It is started
// ("start") before the commit is written, so that git is running by
// then. The commit's updates are sent with "prepare" (lock the refs,
// check the tip, write and sync the lock files) while the objects are
// published, and "commit" (rename the lock files into place) only once
// they are. Closing stdin before "commit" aborts it. update-ref reads the
// new commit from the quarantine: it checks that the objects it is given
// exist.
type refTx struct {
	tw       *io.PipeWriter
	prepared chan struct{} // git locked the refs
	silent   chan struct{} // git closed its output (it ended, or refused the transaction)
	moved    chan error    // git's exit
	werr     error
	done     bool
}

func (m *Manager) startRefTx(ctx context.Context, w *ws, q *quarantine) *refTx {
	cmds, tw := io.Pipe()
	c := w.cmd("capture", "", "update-ref", "--stdin")
	c.env = append(c.env, "GIT_ALTERNATE_OBJECT_DIRECTORIES="+quoteAlternate(q.dir))
	c.stdin = cmds
	t := &refTx{tw: tw, prepared: make(chan struct{}), silent: make(chan struct{}), moved: make(chan error, 1)}
	go func() {
		err := m.exec(ctx, c, func(r io.Reader) error {
			defer close(t.silent)
			s := bufio.NewScanner(r)
			for s.Scan() {
				if s.Text() == "prepare: ok" {
					close(t.prepared)
				}
			}
			return s.Err()
		})
		cmds.CloseWithError(errors.New("update-ref ended")) // unblock a writer
		t.moved <- err
	}()
	t.write("start\n")
	return t
}

func (t *refTx) write(s string) {
	if t.werr == nil {
		_, t.werr = io.WriteString(t.tw, s)
	}
}

// finish commits the transaction if publishing succeeded (perr is nil)
// and git prepared it, else aborts it, and waits for git.
func (t *refTx) finish(perr error) error {
	if t.done {
		return errors.New("checkpoint: ref transaction reused")
	}
	t.done = true
	if t.werr == nil && perr == nil {
		select {
		case <-t.prepared:
			t.write("commit\n")
		case <-t.silent:
		}
	}
	t.tw.Close()
	rerr := <-t.moved
	for _, err := range []error{perr, rerr, t.werr} {
		if err != nil {
			return err
		}
	}
	return nil
}

// abort ends a transaction that was not finished.
func (t *refTx) abort() {
	if !t.done {
		t.finish(errors.New("aborted"))
	}
}

// countedChanges is a count of changes made while the trees were built:
// n entries differ from the index tree was written from (-1: not
// counted).
type countedChanges struct {
	tree string
	n    int
}

// changes counts the files under the workspace that differ between tree
// and the parent's tree (or the base commit's when there is no parent):
// 0 when the trees are equal, counted when the count was made against
// the parent's tree, else with git diff-tree once the trees are
// published. It returns noBase when there is nothing to compare with and
// -1 when counting failed.
func (m *Manager) changes(ctx context.Context, w *ws, parent, parentTree, base, tree string, counted countedChanges) int {
	against := parent
	if against == "" {
		against = base
	}
	switch {
	case against == "":
		return noBase
	case parentTree == tree:
		return 0
	case parentTree != "" && counted.tree == parentTree && counted.n >= 0:
		return counted.n
	}
	n := 0
	c := w.cmd("capture", "", "diff-tree", "-r", "-z", "--name-only", "--no-renames", "--relative", against, tree)
	if err := m.scan(ctx, c, func([]byte) error { n++; return nil }); err != nil {
		return -1
	}
	return n
}

func commitMessage(thread, scope, parent, base string) string {
	none := func(s string) string {
		if s == "" {
			return "none"
		}
		return s
	}
	return fmt.Sprintf("nexus checkpoint %s %s\n\nNexus-Thread: %s\nNexus-Scope: %s\nNexus-Previous: %s\nNexus-Base: %s\n",
		thread, scope, thread, scope, none(parent), none(base))
}
