package store

import (
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/nexus-tui/nexus/core"
	"github.com/zeebo/blake3"
	bolt "go.etcd.io/bbolt"
)

// The vault holds the sealed histories of finished runs (core.SealedRun),
// content-addressed: key = BLAKE3-256 of the value, value = the msgpack
// map {"attempts": [...], "nodes": [...], "plan": plan|nil, "effects":
// [...]} in core's canonical order. A snapshot body names each sealed
// run's blob by the hex of that hash. Blobs are written in the snapshot
// transaction that first names them and are never changed; they are not
// deleted either (a run is sealed once unless a later event changes it,
// so garbage is rare). Part of the on-disk format.
var bucketVault = []byte("vault") // part of the on-disk format

// encodeSealed encodes a sealed run history.
func encodeSealed(r *core.SealedRun) []byte {
	e := &enc{b: make([]byte, 0, 1024)}
	o := e.obj()
	o.key("attempts")
	e.arrayLen(len(r.Attempts))
	for _, a := range r.Attempts {
		encAttempt(e, a)
	}
	o.key("nodes")
	e.arrayLen(len(r.Nodes))
	for _, n := range r.Nodes {
		encNode(e, n)
	}
	o.key("plan")
	if r.Plan == nil {
		e.nil()
	} else {
		encPlan(e, r.Plan)
	}
	o.key("effects")
	e.arrayLen(len(r.Effects))
	for _, f := range r.Effects {
		encEffect(e, f)
	}
	o.end()
	return e.b
}

// decodeSealed decodes a blob written by encodeSealed. The strings of the
// result share one copy of b.
func decodeSealed(b []byte) (*core.SealedRun, error) {
	r := &reader{s: string(b)}
	out := &core.SealedRun{}
	n, ok := r.mapLen()
	if !ok && r.err == nil {
		return nil, errors.New("sealed run is nil")
	}
	for ; n > 0 && r.err == nil; n-- {
		switch r.str() {
		case "attempts":
			out.Attempts = decArray(r, decAttempt)
		case "nodes":
			out.Nodes = decArray(r, decNode)
		case "plan":
			out.Plan = decPlan(r)
		case "effects":
			out.Effects = decArray(r, decEffect)
		default:
			r.skip()
		}
	}
	if err := r.done(); err != nil {
		return nil, fmt.Errorf("decode sealed run: %w", err)
	}
	return out, nil
}

func decArray[V any](r *reader, f func(*reader) *V) []*V {
	n, ok := r.arrayLen()
	if !ok {
		return nil
	}
	out := make([]*V, 0, n)
	for ; n > 0 && r.err == nil; n-- {
		v := f(r)
		if v == nil && r.err == nil {
			r.fail("array entry %d is nil", len(out))
		}
		out = append(out, v)
	}
	return out
}

// sealRef names a blob: the hex of its BLAKE3-256.
func sealRef(blob []byte) string {
	sum := blake3.Sum256(blob)
	return hex.EncodeToString(sum[:])
}

// loadSealed reads and checks the blob ref names. It is the Load of the
// seals of a State this store decoded.
func (s *Store) loadSealed(ref string) (*core.SealedRun, error) {
	key, err := hex.DecodeString(ref)
	if err != nil || len(key) != 32 {
		return nil, fmt.Errorf("malformed sealed run reference %.70q", ref)
	}
	var blob []byte
	err = s.view(func(tx *bolt.Tx) error {
		vault := tx.Bucket(bucketVault)
		if vault == nil {
			return fmt.Errorf("the journal has no vault bucket for sealed run %s", ref)
		}
		v := vault.Get(key)
		if v == nil {
			return fmt.Errorf("sealed run %s is not in the vault", ref)
		}
		blob = append([]byte(nil), v...)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if sealRef(blob) != ref {
		return nil, fmt.Errorf("sealed run %s does not match its hash", ref)
	}
	return decodeSealed(blob)
}

// putSealed writes blobs the vault does not hold yet.
func putSealed(tx *bolt.Tx, blobs map[string][]byte) error {
	if len(blobs) == 0 {
		return nil
	}
	vault, err := tx.CreateBucketIfNotExists(bucketVault)
	if err != nil {
		return fmt.Errorf("store: create vault: %w", err)
	}
	vault.FillPercent = 1.0
	for ref, blob := range blobs {
		key, _ := hex.DecodeString(ref)
		if vault.Get(key) != nil {
			continue
		}
		if err := vault.Put(key, blob); err != nil {
			return fmt.Errorf("store: write sealed run: %w", err)
		}
	}
	return nil
}
