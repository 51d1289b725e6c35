package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/nexus-tui/nexus/core"
	bolt "go.etcd.io/bbolt"
)

// rebuild writes the intact events of the journal file src into
// journal.db.rebuild in dir, snapshots the replay, verifies the new file
// and fills res; on error the caller removes the new file and the
// original is untouched.
func rebuild(ctx context.Context, dir string, src *os.File, res *RepairResult, opts Options) error {
	fi, err := src.Stat()
	if err != nil {
		return fmt.Errorf("store: repair: %w", err)
	}
	sv := scan(&pageFile{r: src, path: src.Name(), size: fi.Size()})
	rp := sv.plan()
	res.Kept, res.Lost, res.Dropped, res.DroppedAtLeast = uint64(len(rp.kept)), rp.lost, rp.dropped, rp.atLeast
	name := JournalFile + rebuildSuffix
	tmp := filepath.Join(dir, name)
	// A leftover of a repair that was killed: this one holds the lock.
	if err := os.Remove(tmp); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("store: remove %s: %w", tmp, err)
	}
	if err := writeEvents(ctx, tmp, sv, rp, filepath.Base(res.Backup), opts); err != nil {
		return err
	}
	t, err := open(dir, name, opts, true)
	if err != nil {
		return fmt.Errorf("store: the rebuilt journal does not open (%w); nothing was changed", err)
	}
	defer t.Close()
	if rp.last > 0 {
		v := NewVerifier()
		v.Pages = false
		rep, err := v.Check(ctx, t, nil)
		if err != nil {
			return err
		}
		if !rep.OK {
			return fmt.Errorf("store: the rebuilt journal does not verify (%s); nothing was changed", rep.Reason)
		}
		if err := t.SaveSnapshot(v.State()); err != nil {
			return err
		}
	}
	if res.After, err = t.Verify(ctx); err != nil {
		return err
	}
	if !res.After.OK {
		return fmt.Errorf("store: the rebuilt journal does not verify (%s); nothing was changed", res.After.Reason)
	}
	return nil
}

// writeEvents writes seqs 1 to rp.last into a new journal file at path:
// each kept event's original bytes, a journal.repaired event at each lost
// seq, chained afresh, a few MiB per transaction.
func writeEvents(ctx context.Context, path string, sv *salvage, rp *rebuildPlan, backup string, opts Options) error {
	db, err := bolt.Open(path, 0o600, &bolt.Options{PageSize: PageSize, NoSync: opts.NoSync, OpenFile: openJournalFile})
	if err != nil {
		return fmt.Errorf("store: create %s: %w", path, err)
	}
	db.AllocSize = allocSize
	err = db.Update(createLayout)
	now := time.Now().UnixNano()
	var hash [hashSize]byte
	kept, lost := rp.kept, rp.lost
	for seq := uint64(1); err == nil && seq <= rp.last; {
		if err = ctx.Err(); err != nil {
			break
		}
		err = db.Update(func(tx *bolt.Tx) error {
			events := tx.Bucket(bucketEvents)
			events.FillPercent = 1.0
			for size := 0; seq <= rp.last && size < chunkBytes; seq++ {
				var data []byte
				if len(kept) > 0 && kept[0].seq == seq {
					b, err := sv.pf.readAt(kept[0].c.off, int(kept[0].c.n))
					if err != nil {
						return fmt.Errorf("read seq %d again: %w", seq, err)
					}
					data, kept = b[hashSize:], kept[1:]
				} else {
					for lost[0].To < seq {
						lost = lost[1:]
					}
					data = appendEvent(nil, repairedEvent(seq, now, lost[0].Reason, backup))
				}
				hash = chainHash(hash, string(data))
				v := append(append(make([]byte, 0, hashSize+len(data)), hash[:]...), data...)
				if err := events.Put(seqKey(seq), v); err != nil {
					return err
				}
				size += len(v)
			}
			return tx.Bucket(bucketMeta).Put(keyLast, encodeLast(seq-1, hash))
		})
	}
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("store: write the rebuilt journal %s: %w", path, err)
	}
	return nil
}

// repairedEvent stands at a lost seq of a rebuilt journal.
func repairedEvent(seq uint64, at int64, reason, backup string) *core.Event {
	return &core.Event{Seq: seq, ID: "e" + strconv.FormatUint(seq, 10), Type: core.EvJournalRepaired, At: at,
		Payload: core.Payload{Note: fmt.Sprintf("nexus verify --repair could not recover the event at seq %d (%s); the original journal is kept as %s",
			seq, reason, backup)}}
}
