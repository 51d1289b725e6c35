package natsjournal

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// LeaseHolder names the host holding project's lease, or "" when no host
// does (never taken, released, or expired). It only reads, so a viewer's
// credentials do.
func LeaseHolder(ctx context.Context, js jetstream.JetStream, project string) (string, error) {
	nm, err := namesFor(project)
	if err != nil {
		return "", err
	}
	kv, err := js.KeyValue(ctx, nm.stream+"_LEASE")
	if errors.Is(err, jetstream.ErrBucketNotFound) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("natsjournal: the lease bucket of %s: %w", project, err)
	}
	e, err := kv.Get(ctx, leaseKey)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("natsjournal: the lease of %s: %w", project, err)
	}
	return string(e.Value()), nil
}

// HolderName is a lease holder as people read it: without the trailing
// " #id" a holder may end in (a host's state dir id, 8 to 64 hex digits,
// which tells a restarted host its own dead lease but says nothing to a
// person). Any other name is returned as it is.
func HolderName(holder string) string {
	i := strings.LastIndex(holder, " #")
	if i < 0 {
		return holder
	}
	id := holder[i+2:]
	if len(id) < 8 || len(id) > 64 || strings.Trim(id, "0123456789abcdef") != "" {
		return holder
	}
	return holder[:i]
}

// WatchOwner follows who holds the project's lease: the holder's name
// each time it changes, "" while no host holds it (released, or expired:
// the lease bucket leaves a marker then). The channel closes when ctx
// ends. Event-driven: a KV watch, no polling.
func (r *Remote) WatchOwner(ctx context.Context) (<-chan string, error) {
	nm, err := namesFor(r.project)
	if err != nil {
		return nil, err
	}
	kv, err := r.js.KeyValue(ctx, nm.stream+"_LEASE")
	if err != nil {
		return nil, fmt.Errorf("natsjournal: the lease bucket of %s: %w", r.project, err)
	}
	w, err := kv.Watch(ctx, leaseKey)
	if err != nil {
		return nil, fmt.Errorf("natsjournal: watch the lease of %s: %w", r.project, err)
	}
	out := make(chan string, 1)
	go func() {
		defer close(out)
		defer func() { _ = w.Stop() }()
		owner, sent := "", false
		for {
			select {
			case <-ctx.Done():
				return
			case e, ok := <-w.Updates():
				if !ok {
					return
				}
				next := owner
				switch {
				case e == nil: // the initial values are in
				case e.Operation() == jetstream.KeyValuePut:
					next = string(e.Value())
				default: // deleted, purged or expired
					next = ""
				}
				if next == owner && sent {
					continue
				}
				owner, sent = next, true
				select {
				case <-out: // only the latest matters
				default:
				}
				out <- owner
			}
		}
	}()
	return out, nil
}

// ProjectInfo is one project on a hub: its key, the host holding its
// lease ("" when none is up) and how many journal messages it has.
type ProjectInfo struct {
	Project string `json:"project"`
	Owner   string `json:"owner"`
	Commits uint64 `json:"commits"`
}

// journalDesc starts the description of every journal stream (journal.go's
// streamConfig); the rest is the project's key.
const journalDesc = "nexus journal of project "

// Projects lists the projects with a journal on the hub nc is connected
// to, by key, each with its owner: the hub's presence. A lease is the
// presence of its host: it lives while the host renews it and expires a
// TTL after the host stopped (lease.go).
func Projects(ctx context.Context, nc *nats.Conn) ([]ProjectInfo, error) {
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, fmt.Errorf("natsjournal: JetStream client: %w", err)
	}
	var out []ProjectInfo
	lister := js.ListStreams(ctx)
	for si := range lister.Info() {
		c := si.Config
		if !strings.HasPrefix(c.Name, streamPrefix) || !strings.HasPrefix(c.Description, journalDesc) {
			continue
		}
		p := strings.TrimPrefix(c.Description, journalDesc)
		if nm, err := namesFor(p); err != nil || nm.stream != c.Name {
			continue
		}
		owner, err := LeaseHolder(ctx, js, p)
		if err != nil {
			return nil, err
		}
		out = append(out, ProjectInfo{Project: p, Owner: owner, Commits: si.State.Msgs})
	}
	if err := lister.Err(); err != nil {
		return nil, fmt.Errorf("natsjournal: list the hub's journals: %w", err)
	}
	sort.Slice(out, func(i, k int) bool { return out[i].Project < out[k].Project })
	return out, nil
}
