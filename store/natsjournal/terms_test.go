package natsjournal

import (
	"bytes"
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/nexus-tui/nexus/core"
)

// fakeTerms is a host's terminals: thread "sh" has one, whose feed is a
// Reset, a chunk larger than one message and then the child's exit.
type fakeTerms struct {
	mu    sync.Mutex
	typed []byte
	size  [2]int
	big   []byte
}

func (f *fakeTerms) AttachTerminal(ctx context.Context, thread string) (*core.TermFeed, error) {
	if thread != "sh" {
		return nil, core.ErrNoTerminal
	}
	ch := make(chan core.TermChunk, 3)
	ch <- core.TermChunk{Reset: true, Data: []byte("$ "), Cols: 80, Rows: 24}
	ch <- core.TermChunk{Data: f.big}
	close(ch)
	return &core.TermFeed{Chunks: ch, Err: func() error { return core.ErrTerminalExited }}, nil
}

func (f *fakeTerms) TerminalInput(ctx context.Context, thread string, data []byte) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.typed = append(f.typed, data...)
	return nil
}

func (f *fakeTerms) ResizeTerminal(ctx context.Context, thread string, cols, rows int) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.size = [2]int{cols, rows}
	return nil
}

// A remote UI follows a thread's terminal on its owner through the hub:
// the Reset, then every byte in order (a chunk over one message's size
// comes in pieces), then the exit; keys typed and a resize reach the
// owner; a thread with no terminal says so; a viewer types nothing.
func TestRemoteTerminals(t *testing.T) {
	h := startHub(t, t.TempDir())
	startOwner(t, connect(t, h.url))
	f := &fakeTerms{big: bytes.Repeat([]byte("0123456789abcdef"), 3*maxTermPiece/16+5)}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	served := make(chan struct{})
	go func() { _ = ServeTerminals(ctx, connect(t, h.url), remoteProject, f); close(served) }()
	defer func() { cancel(); <-served }()
	r := openRemote(t, connect(t, h.url), RemoteOptions{})

	var feed *core.TermFeed
	var err error
	for try := 0; try < 100; try++ { // until the owner's subscriptions are up
		if feed, err = r.AttachTerminal(ctx, "sh"); !errors.Is(err, core.ErrNoTerminal) {
			break
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	var got []byte
	first := true
	for c := range feed.Chunks {
		if first && (!c.Reset || c.Cols != 80 || c.Rows != 24) {
			t.Fatalf("the first chunk is not the Reset with the size: %+v", c)
		}
		first = false
		got = append(got, c.Data...)
	}
	if want := append([]byte("$ "), f.big...); !bytes.Equal(got, want) {
		t.Fatalf("the remote feed carried %d bytes, want %d in order", len(got), len(want))
	}
	if !errors.Is(feed.Err(), core.ErrTerminalExited) {
		t.Fatalf("the feed ended with %v, want the child's exit", feed.Err())
	}
	if _, err := r.AttachTerminal(ctx, "no-pty"); !errors.Is(err, core.ErrNoTerminal) {
		t.Fatalf("attach to a thread with no terminal: %v", err)
	}
	if err := r.TerminalInput(ctx, "sh", []byte("ls\r")); err != nil {
		t.Fatal(err)
	}
	if err := r.ResizeTerminal(ctx, "sh", 100, 30); err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	typed, size := string(f.typed), f.size
	f.mu.Unlock()
	if typed != "ls\r" || size != [2]int{100, 30} {
		t.Fatalf("the owner got input %q and size %v", typed, size)
	}
	v := openRemote(t, connect(t, h.url), RemoteOptions{ReadOnly: true})
	var ie *core.InputError
	if err := v.TerminalInput(ctx, "sh", []byte("rm -rf ~\r")); !errors.As(err, &ie) {
		t.Fatalf("a viewer typed into a terminal: %v", err)
	}
}
