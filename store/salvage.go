package store

import (
	"maps"
	"slices"

	"github.com/nexus-tui/nexus/core"
	"github.com/zeebo/blake3"
)

// Salvage finds every stored event a damaged file still holds and decides
// which of them are intact, without bbolt: it reads pages with preads
// and trusts nothing it has not checked.
//
// Where events are looked for: the leaves of the events bucket reached
// from the current meta page (a walk that steps over damaged pages), then
// every other page of the file that parses as a leaf, whatever its flags
// say (free pages still hold older copies of leaves, and a page whose
// flags were damaged keeps its elements). A value under an 8-byte key is
// a candidate for the seq the key names; the chain decides.
//
// The rule (doc.go, "Damaged journals"): an event is intact when it
// decodes as the event at its seq and the chain vouches for its bytes:
// its stored hash is BLAKE3(the hash before it || its bytes), or its own
// stored hash is damaged but the next event chains from the hash its
// bytes give. The hash before the first event is 32 zero bytes; before
// any other it is the hash of the intact event before it or, when that
// event is lost, its stored hash, if the event checked against it
// chains. So one damaged event costs only itself, but after a stretch
// with no copy at all (a zeroed page) the first event is lost too:
// nothing is left that vouches for it.

// candidate is a stored value (hash || event) found in the file.
type candidate struct {
	off  int64
	n    uint32
	live bool // in the events bucket of the current tree
}

type salvage struct {
	pf       *pageFile
	cands    map[uint64][]candidate
	metaLast uint64   // meta/last's seq in the current tree, 0 if unreadable
	metaRead bool     // metaLast was read
	oldLast  uint64   // the highest in older copies of the meta bucket
	damage   []string // what the walk of the current tree met
}

// scan collects the candidates of pf.
func scan(pf *pageFile) *salvage {
	sv := &salvage{pf: pf, cands: map[uint64][]candidate{}}
	ms := pf.metas()
	limit := uint64(pf.size) / pf.ps
	handled := map[uint64]bool{}
	if m, ok := current(ms); ok {
		w := newWalker(pf, min(m.hwm, limit), true)
		w.tolerant = true
		w.leafFn = func(bucket string, b []byte, base int64, es []elem) {
			handled[uint64(base)/pf.ps] = true
			switch bucket {
			case string(bucketEvents):
				sv.events(b, base, es, true)
			case string(bucketMeta):
				sv.meta(b, es)
			}
		}
		w.walk(m.root, m.freelist)
		sv.damage = w.problems
	} else {
		sv.damage = []string{"both meta pages are damaged"}
	}
	for id := uint64(2); id < limit; id++ {
		if handled[id] {
			continue
		}
		p, err := pf.readPage(id, limit, true)
		if err != nil || p.flags == flagBranch || p.flags == flagFreelist || p.flags == flagMeta {
			continue
		}
		es, err := parseElems(p.b, true, p.count, pf.span(p))
		if err != nil {
			continue
		}
		base := int64(id * pf.ps)
		sv.events(p.b, base, es, false)
		// A small events bucket lives inline, in its parent's leaf.
		for _, e := range es {
			if e.flags&elemBucket == 0 || e.valOff+e.valLen > uint64(len(p.b)) || e.valLen < bucketHeaderSize+pageHeaderSize {
				continue
			}
			in := p.b[e.valOff+bucketHeaderSize : e.valOff+e.valLen]
			if le.Uint64(p.b[e.valOff:]) != 0 {
				continue
			}
			ies, err := parseElems(in, true, int(le.Uint16(in[10:])), uint64(len(in)))
			if err != nil {
				continue
			}
			sv.events(in, base+int64(e.valOff)+bucketHeaderSize, ies, false)
			if e.keyOff+e.keyLen <= uint64(len(p.b)) && string(p.b[e.keyOff:e.keyOff+e.keyLen]) == string(bucketMeta) {
				sv.oldLast = max(sv.oldLast, lastIn(in, ies))
			}
		}
	}
	return sv
}

// events adds the candidates of a leaf whose bytes b lie at base.
func (sv *salvage) events(b []byte, base int64, es []elem, live bool) {
	for _, e := range es {
		if e.flags != 0 || e.keyLen != 8 || e.valLen <= hashSize || e.valOff+e.valLen > uint64(len(b)) {
			continue
		}
		seq := seqOf(b[e.keyOff : e.keyOff+8])
		if seq == 0 {
			continue
		}
		sv.cands[seq] = append(sv.cands[seq], candidate{off: base + int64(e.valOff), n: uint32(e.valLen), live: live})
	}
}

// meta reads meta/last from the current tree's meta bucket.
func (sv *salvage) meta(b []byte, es []elem) {
	sv.metaLast, sv.metaRead = lastIn(b, es), true
}

// lastIn returns the seq of meta/last in a meta bucket's leaf, or 0.
func lastIn(b []byte, es []elem) uint64 {
	for _, e := range es {
		if e.keyOff+e.keyLen > uint64(len(b)) || string(b[e.keyOff:e.keyOff+e.keyLen]) != string(keyLast) ||
			e.valOff+e.valLen > uint64(len(b)) {
			continue
		}
		if last, _, ok := parseLast(b[e.valOff : e.valOff+e.valLen]); ok {
			return last
		}
	}
	return 0
}

// stored is a candidate read back: its stored hash and event bytes.
type stored struct {
	c    candidate
	hash [hashSize]byte
	data string
	ok   bool // the bytes decode as the event at the candidate's seq
}

// values reads the distinct candidates of seq, those of the current tree
// first.
func (sv *salvage) values(seq uint64) []stored {
	cs := slices.Clone(sv.cands[seq])
	slices.SortStableFunc(cs, func(a, b candidate) int {
		switch {
		case a.live == b.live:
			return 0
		case a.live:
			return -1
		}
		return 1
	})
	var out []stored
	seen := map[string]bool{}
	var ev core.Event
	for _, c := range cs {
		b, err := sv.pf.readAt(c.off, int(c.n))
		if err != nil || seen[string(b)] {
			continue
		}
		seen[string(b)] = true
		st := stored{c: c, data: string(b[hashSize:])}
		copy(st.hash[:], b)
		st.ok = decodeEvent(st.data, &ev) == nil && ev.Seq == seq
		out = append(out, st)
	}
	return out
}

// SeqRange is a run of seqs, From to To inclusive, and why they were lost.
type SeqRange struct {
	From   uint64 `json:"from"`
	To     uint64 `json:"to"`
	Reason string `json:"reason"`
}

// rebuildPlan is what Repair writes: the intact events, by candidate, and
// the seqs below the last of them that get a journal.repaired event.
type rebuildPlan struct {
	kept    []keptEvent
	lost    []SeqRange
	last    uint64 // the last intact seq
	dropped uint64 // seqs known to have followed it
	atLeast bool   // dropped is a lower bound: meta/last is unreadable
}

type keptEvent struct {
	seq uint64
	c   candidate
}

func (rp *rebuildPlan) lose(from, to uint64, reason string) {
	if n := len(rp.lost); n > 0 && rp.lost[n-1].To+1 == from && rp.lost[n-1].Reason == reason {
		rp.lost[n-1].To = to
		return
	}
	rp.lost = append(rp.lost, SeqRange{From: from, To: to, Reason: reason})
}

// plan applies the rule above to every seq that has a candidate.
func (sv *salvage) plan() *rebuildPlan {
	rp := &rebuildPlan{}
	seqs := slices.Sorted(maps.Keys(sv.cands))
	var anchor [hashSize]byte // the hash the next seq must chain from
	anchored := true
	next, seen := uint64(1), uint64(0)
	var cur []stored
	for i, seq := range seqs {
		if seq != next {
			rp.lose(next, seq-1, "no copy of it is left")
			anchored, cur = false, nil
		}
		if cur == nil {
			cur = sv.values(seq)
		}
		var ahead []stored
		if i+1 < len(seqs) && seqs[i+1] == seq+1 {
			ahead = sv.values(seq + 1)
		}
		if slices.ContainsFunc(cur, func(st stored) bool { return st.ok }) {
			seen = seq
		}
		if st, h, ok := choose(cur, ahead, anchor, anchored); ok {
			rp.kept = append(rp.kept, keptEvent{seq: seq, c: st.c})
			rp.last, anchor, anchored = seq, h, true
		} else {
			rp.lose(seq, seq, lossReason(cur, anchored))
			anchored = false
			for _, st := range cur {
				if chainsTo(st.hash, ahead) {
					anchor, anchored = st.hash, true
					break
				}
			}
		}
		cur, next = ahead, seq+1
	}
	for len(rp.lost) > 0 && rp.lost[len(rp.lost)-1].From > rp.last {
		rp.lost = rp.lost[:len(rp.lost)-1]
	}
	known := sv.metaLast
	if !sv.metaRead {
		// The current tree is unreadable: an older copy of its meta
		// bucket gives a lower bound.
		known, rp.atLeast = sv.oldLast, true
	}
	if end := max(known, seen); end > rp.last {
		rp.dropped = end - rp.last
	}
	return rp
}

// choose picks the intact value of a seq, if any, and its chain hash.
func choose(cur, ahead []stored, anchor [hashSize]byte, anchored bool) (stored, [hashSize]byte, bool) {
	if !anchored {
		return stored{}, anchor, false
	}
	for _, st := range cur {
		if st.ok && chainHash(anchor, st.data) == st.hash {
			return st, st.hash, true
		}
	}
	for _, st := range cur {
		if h := chainHash(anchor, st.data); st.ok && chainsTo(h, ahead) {
			return st, h, true
		}
	}
	return stored{}, anchor, false
}

func lossReason(cur []stored, anchored bool) string {
	switch {
	case !slices.ContainsFunc(cur, func(st stored) bool { return st.ok }):
		return "it does not decode"
	case !anchored:
		return "the event before it is lost, so nothing vouches for it"
	}
	return "its bytes do not match the hash chain"
}

// chainsTo reports whether one of next chains from hash.
func chainsTo(hash [hashSize]byte, next []stored) bool {
	for _, st := range next {
		if chainHash(hash, st.data) == st.hash {
			return true
		}
	}
	return false
}

func chainHash(prev [hashSize]byte, data string) [hashSize]byte {
	h := blake3.New()
	h.Write(prev[:])
	h.WriteString(data)
	var out [hashSize]byte
	h.Sum(out[:0])
	return out
}
