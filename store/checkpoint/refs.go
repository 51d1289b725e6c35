package checkpoint

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Ref namespaces. Part of the repository format nexus leaves behind:
// changing them orphans the checkpoints of existing threads.
const (
	// CheckpointRefs holds refs/nexus/checkpoints/<thread>/<scope>.
	CheckpointRefs = "refs/nexus/checkpoints/"
	// TipRefs holds refs/nexus/tips/<thread>: the checkpoint the thread's
	// workspace last matched (its newest capture, or what Restore put
	// back). It is the parent of the thread's next capture.
	TipRefs = "refs/nexus/tips/"
)

// RefName is the ref of a thread's checkpoint for scope.
func RefName(thread, scope string) string { return CheckpointRefs + thread + "/" + scope }

func tipName(thread string) string { return TipRefs + thread }

// checkName accepts names that are safe as ref components: letters,
// digits, '.', '_' and '-', not starting with '.' or '-', not ending in
// ".lock"; a scope may have several '/'-separated parts ("run/3",
// "node/3/a1/n4").
func checkName(name string, slashes bool) error {
	if name == "" || len(name) > 200 {
		return fmt.Errorf("%w: %q", ErrName, name)
	}
	parts := []string{name}
	if slashes {
		parts = strings.Split(name, "/")
	}
	for _, p := range parts {
		if p == "" || p[0] == '.' || p[0] == '-' || strings.HasSuffix(p, ".lock") || strings.HasSuffix(p, ".") || strings.Contains(p, "..") {
			return fmt.Errorf("%w: %q", ErrName, name)
		}
		for _, r := range p {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-') {
				return fmt.Errorf("%w: %q", ErrName, name)
			}
		}
	}
	return nil
}

// Ref is one checkpoint ref of a thread.
type Ref struct {
	Name   string // full ref name
	Scope  string
	Commit string
	Time   time.Time // when it was captured
}

// Refs lists a thread's checkpoint refs, ordered by ref name.
func (m *Manager) Refs(ctx context.Context, workspace, thread string) ([]Ref, error) {
	if err := checkName(thread, false); err != nil {
		return nil, err
	}
	w, unlock, err := m.open(ctx, workspace)
	if err != nil {
		return nil, err
	}
	defer unlock()
	prefix := CheckpointRefs + thread + "/"
	out, err := m.run(ctx, w.cmd("list checkpoints", "", "for-each-ref",
		"--format=%(refname) %(objectname) %(committerdate:unix)", prefix))
	if err != nil {
		return nil, err
	}
	var refs []Ref
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(l)
		if len(f) != 3 {
			continue
		}
		sec, _ := strconv.ParseInt(f[2], 10, 64)
		refs = append(refs, Ref{Name: f[0], Scope: strings.TrimPrefix(f[0], prefix), Commit: f[1], Time: time.Unix(sec, 0)})
	}
	return refs, nil
}

// Resolve returns the commit a checkpoint ref (or any revision) names in
// the workspace's repository, or an error matching ErrNotFound.
func (m *Manager) Resolve(ctx context.Context, workspace, rev string) (string, error) {
	w, unlock, err := m.open(ctx, workspace)
	if err != nil {
		return "", err
	}
	defer unlock()
	return m.commitOf(ctx, w, "resolve checkpoint", rev)
}

func (m *Manager) commitOf(ctx context.Context, w *ws, op, rev string) (string, error) {
	ids, err := m.commitsOf(ctx, w, op, rev)
	if err != nil {
		return "", err
	}
	return ids[0], nil
}

// commitsOf resolves revisions to commit ids with one git process.
func (m *Manager) commitsOf(ctx context.Context, w *ws, op string, revs ...string) ([]string, error) {
	peeled := make([]string, len(revs))
	for i, rev := range revs {
		if badRev(rev) {
			return nil, fmt.Errorf("%w: %q", ErrNotFound, rev)
		}
		peeled[i] = rev + "^{commit}"
	}
	objs, err := m.objects(ctx, w, op, peeled...)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(revs))
	for i, o := range objs {
		if o.typ != "commit" {
			return nil, fmt.Errorf("%w: %s in %s", ErrNotFound, revs[i], w.GitDir)
		}
		ids[i] = o.id
	}
	return ids, nil
}

// badRev refuses revisions that git could read as an option or that
// would break cat-file's line protocol.
func badRev(rev string) bool {
	return rev == "" || strings.HasPrefix(rev, "-") || strings.ContainsAny(rev, " \t\r\n\x00")
}

// DeleteRef deletes one checkpoint ref. Rollback does not need it (the
// kernel marks later checkpoints stale and their refs stay, so they can
// still be diffed); it is for pruning.
func (m *Manager) DeleteRef(ctx context.Context, workspace, thread, scope string) error {
	if err := checkName(thread, false); err != nil {
		return err
	}
	if err := checkName(scope, true); err != nil {
		return err
	}
	w, unlock, err := m.open(ctx, workspace)
	if err != nil {
		return err
	}
	defer unlock()
	_, err = m.run(ctx, w.cmd("delete checkpoint", "", "update-ref", "-d", RefName(thread, scope)))
	return err
}

// DeleteThread deletes all of a thread's checkpoint refs and its tip in
// one transaction; git gc may then prune the snapshots.
func (m *Manager) DeleteThread(ctx context.Context, workspace, thread string) error {
	if err := checkName(thread, false); err != nil {
		return err
	}
	w, unlock, err := m.open(ctx, workspace)
	if err != nil {
		return err
	}
	defer unlock()
	m.forgetTip(w, thread)
	out, err := m.run(ctx, w.cmd("delete checkpoints", "", "for-each-ref", "--format=%(refname)",
		CheckpointRefs+thread+"/", tipName(thread)))
	if err != nil {
		return err
	}
	var tx strings.Builder
	for _, r := range strings.Fields(string(out)) {
		fmt.Fprintf(&tx, "delete %s\n", r)
	}
	if tx.Len() == 0 {
		return nil
	}
	c := w.cmd("delete checkpoints", "", "update-ref", "--stdin")
	c.stdin = strings.NewReader(tx.String())
	_, err = m.run(ctx, c)
	return err
}

// open canonicalizes and locks a workspace and resolves its repository.
func (m *Manager) open(ctx context.Context, workspace string) (*ws, func(), error) {
	if err := m.gitFound(); err != nil {
		return nil, nil, err
	}
	path, err := canonical(workspace)
	if err != nil {
		return nil, nil, err
	}
	unlock, err := m.lock(ctx, path)
	if err != nil {
		return nil, nil, err
	}
	w, err := m.resolve(ctx, path)
	if err != nil {
		unlock()
		return nil, nil, err
	}
	return w, unlock, nil
}
