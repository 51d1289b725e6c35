package natsjournal

import (
	"context"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

// A diff is made on the project's owner and read from any machine,
// with a viewer's credentials too (it only reads): the owner's text, or
// its error; with no owner up the error says where the diffs are.
func TestRemoteDiffs(t *testing.T) {
	url, hostFile, viewFile := startHubWithUsers(t, t.TempDir())
	dial := func(file string) *Remote {
		nc, err := Connect(url, ConnectOptions{Credentials: file})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(nc.Close)
		return openRemote(t, nc, RemoteOptions{ReadOnly: file == viewFile})
	}
	hc, err := Connect(url, ConnectOptions{Credentials: hostFile})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(hc.Close)
	openProject(t, hc, remoteProject, Options{}) // the project's journal, made by its host
	r, viewer := dial(hostFile), dial(viewFile)
	ctx := context.Background()

	if _, err := viewer.Diff(ctx, DiffRequest{Thread: "t1"}); !errors.Is(err, ErrNoDiffHost) || !strings.Contains(err.Error(), "host that holds it") {
		t.Fatalf("a diff with no owner up: %v", err)
	}
	sctx, stop := context.WithCancel(ctx)
	served := make(chan error, 1)
	go func() {
		served <- ServeDiffs(sctx, hc, remoteProject, func(_ context.Context, q DiffRequest) (string, error) {
			switch q.Thread {
			case "bin": // a patch of bytes that JSON would have grown 6-fold
				return binDiff, nil
			case "t1":
			default:
				return "", errors.New("unknown thread " + q.Thread + "\non two lines")
			}
			return " M a.txt | +1 -0\n run " + string(rune('0'+q.Run)) + " from " + q.From + " stat " + map[bool]string{true: "yes", false: "no"}[q.Stat], nil
		})
	}()
	defer func() { stop(); <-served }()
	var got string
	for try := 0; try < 100; try++ { // until the owner's subscription is up
		if got, err = viewer.Diff(ctx, DiffRequest{Thread: "t1", Run: 2, Stat: true}); !errors.Is(err, ErrNoDiffHost) {
			break
		}
	}
	if err != nil || got != " M a.txt | +1 -0\n run 2 from  stat yes" {
		t.Fatalf("a viewer's diff of run 2: %q, %v", got, err)
	}
	if got, err := r.Diff(ctx, DiffRequest{Thread: "t1", From: "base", To: "3"}); err != nil || !strings.Contains(got, "from base stat no") {
		t.Fatalf("a host's diff between checkpoints: %q, %v", got, err)
	}
	if _, err := r.Diff(ctx, DiffRequest{Thread: "t9"}); err == nil || err.Error() != "unknown thread t9 on two lines" {
		t.Fatalf("the owner's error comes back as %v", err)
	}
	if got, err := viewer.Diff(ctx, DiffRequest{Thread: "bin"}); err != nil || got != binDiff {
		t.Fatalf("a %d-byte diff of control bytes came back as %d bytes (%v)", len(binDiff), len(got), err)
	}
}

var binDiff = strings.Repeat("\x01\xff", 350<<10)

// An answer over the hub's limit is cut at a line's end, stays valid
// UTF-8, and says it was cut.
func TestDiffAnswerIsBounded(t *testing.T) {
	line := "+ é€ a line of a very long diff\n"
	text := strings.Repeat(line, 2*maxDiffReply/len(line))
	got := capDiff(text)
	if len(got) > maxDiffReply || !utf8.ValidString(got) || !strings.HasSuffix(got, diffTruncated) {
		t.Fatalf("a %d-byte diff became %d bytes (valid UTF-8 %v), ending %q", len(text), len(got), utf8.ValidString(got), got[max(0, len(got)-80):])
	}
	if body := strings.TrimSuffix(got, diffTruncated); !strings.HasSuffix(body, "diff\n") {
		t.Fatalf("the cut is not at a line's end: %q", body[len(body)-40:])
	}
	if small := "x\n"; capDiff(small) != small {
		t.Fatal("a small diff was changed")
	}
}
