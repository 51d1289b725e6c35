package natsjournal

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/nats-io/nats.go"
)

// Diffs over the hub (doc.go, "Diffs"). A thread's checkpoints are git
// objects on its owner's disk, so a diff is made there: a request on
// nexusw.<p>.diff (outside nexus.>, so a viewer may ask: it only reads),
// answered by the host that holds the project. Part of the stream
// format.
const (
	// maxDiffReply bounds the text of one answer; the server's default
	// payload limit is 1 MiB. A longer diff is cut and says so.
	maxDiffReply = 768 << 10
	// diffTimeout bounds the owner's work on one diff and a viewer's
	// wait for it.
	diffTimeout = 30 * time.Second
	// diffWorkers is how many diffs an owner makes at once; more wait.
	diffWorkers = 2
)

// diffTruncated ends an answer cut at maxDiffReply.
const diffTruncated = "[diff truncated: over the hub's answer limit; run nexus diff on the host's machine for all of it]\n"

func diffSubject(project string) string { return watchPrefix + token(project) + ".diff" }

// DiffRequest asks for a diff of a thread, as `nexus diff` takes it:
// run Run's changes (0: the latest), or with From and To the changes
// between two of its checkpoints; Stat keeps only the file list.
type DiffRequest struct {
	Thread string `json:"thread"`
	Run    int    `json:"run,omitempty"`
	From   string `json:"from,omitempty"`
	To     string `json:"to,omitempty"`
	Stat   bool   `json:"stat,omitempty"`
}

// diffReply is an answer: the text as the message's body, as it is (no
// encoding to grow it past the payload limit), or the error, one line,
// in the Nexus-Diff-Error header.
type diffReply struct {
	Text  string
	Error string
}

const hdrDiffError = "Nexus-Diff-Error"

// maxDiffError bounds the error of an answer.
const maxDiffError = 4 << 10

// ServeDiffs answers the project's diff requests with diff (the owner's
// `nexus diff`) until ctx ends, diffWorkers at a time.
func ServeDiffs(ctx context.Context, nc *nats.Conn, project string, diff func(context.Context, DiffRequest) (string, error)) error {
	sem := make(chan struct{}, diffWorkers)
	var wg sync.WaitGroup
	var mu sync.Mutex
	stopped := false
	sub, err := nc.Subscribe(diffSubject(project), func(m *nats.Msg) {
		mu.Lock()
		defer mu.Unlock()
		if stopped {
			return
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
				defer func() { <-sem }()
			case <-ctx.Done():
				return
			}
			respondDiff(m, answerDiff(ctx, m.Data, diff))
		}()
	})
	if err != nil {
		return fmt.Errorf("natsjournal: serve diffs of %s: %w", project, err)
	}
	<-ctx.Done()
	_ = sub.Unsubscribe()
	mu.Lock()
	stopped = true
	mu.Unlock()
	wg.Wait()
	return nil
}

// answerDiff decodes one request and makes its diff.
func answerDiff(ctx context.Context, body []byte, diff func(context.Context, DiffRequest) (string, error)) diffReply {
	var q DiffRequest
	if len(body) > maxCmdBytes || json.Unmarshal(body, &q) != nil || q.Thread == "" || q.Run < 0 {
		return diffReply{Error: "a diff request that does not decode or names no thread"}
	}
	dctx, cancel := context.WithTimeout(ctx, diffTimeout)
	defer cancel()
	text, err := diff(dctx, q)
	if err != nil {
		return diffReply{Error: err.Error()}
	}
	return diffReply{Text: capDiff(text)}
}

// capDiff cuts text to maxDiffReply bytes, at a line's end where one is
// near and never inside a UTF-8 sequence, and says it did.
func capDiff(text string) string {
	if len(text) <= maxDiffReply {
		return text
	}
	cut := maxDiffReply - len(diffTruncated) - 1 // 1: room for a newline
	// Back to the start of a rune (at most utf8.UTFMax-1 bytes: text
	// that is not UTF-8 is cut where it is), then to a line's end near.
	for back := cut; cut > back-(utf8.UTFMax-1) && !utf8.RuneStart(text[cut]); {
		cut--
	}
	if nl := strings.LastIndexByte(text[:cut], '\n'); nl >= 0 && nl > cut-4096 {
		cut = nl + 1
	}
	if cut > 0 && text[cut-1] != '\n' {
		return text[:cut] + "\n" + diffTruncated
	}
	return text[:cut] + diffTruncated
}

func respondDiff(m *nats.Msg, r diffReply) {
	a := nats.NewMsg(m.Reply)
	a.Data = []byte(r.Text)
	if r.Error != "" {
		e := strings.ToValidUTF8(strings.Join(strings.Fields(r.Error), " "), "?")
		if len(e) > maxDiffError {
			e = strings.ToValidUTF8(e[:maxDiffError], "") + "…"
		}
		a.Header.Set(hdrDiffError, e)
	}
	_ = m.RespondMsg(a)
}

// ErrNoDiffHost is matched by Diff's error when no host holds the
// project: its checkpoints, and so its diffs, are on that host's disk.
var ErrNoDiffHost = errors.New("no host serves the project now")

// Diff asks the project's owner for a diff (what `nexus diff` prints on
// its machine). It only reads, so a viewer's credentials do.
func (r *Remote) Diff(ctx context.Context, q DiffRequest) (string, error) {
	body, err := json.Marshal(q)
	if err != nil {
		return "", err
	}
	cctx, cancel := context.WithTimeout(ctx, diffTimeout+r.j.opts.Timeout)
	defer cancel()
	m, err := r.nc.RequestWithContext(cctx, diffSubject(r.project), body)
	if errors.Is(err, nats.ErrNoResponders) {
		return "", fmt.Errorf("%w: project %s's checkpoints are on the disk of the host that holds it; its diffs show once one does", ErrNoDiffHost, r.project)
	}
	if err != nil {
		return "", fmt.Errorf("natsjournal: a diff of %s from its owner: %w", q.Thread, err)
	}
	if e := m.Header.Get(hdrDiffError); e != "" {
		return "", errors.New(e)
	}
	if len(m.Data) > maxDiffReply {
		return "", fmt.Errorf("natsjournal: the owner's diff of %s is over the answer limit (%d bytes)", q.Thread, len(m.Data))
	}
	return string(m.Data), nil
}
