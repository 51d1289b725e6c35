package natsjournal

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nexus-tui/nexus/core"
)

// A hub with users: the host's credentials append, a viewer's read every
// event and can append nothing (the server refuses it and the stream is
// unchanged); no credentials or a wrong password do not connect at all.
func TestViewerReadsAndCannotWrite(t *testing.T) {
	dir := t.TempDir()
	url, hostFile, viewFile := startHubWithUsers(t, dir)
	hostC, _, _ := EnsureCredentials(filepath.Join(dir, "creds"), HostUser)
	if again, _, err := EnsureCredentials(filepath.Join(dir, "creds"), HostUser); err != nil || again != hostC {
		t.Fatalf("a second EnsureCredentials made other credentials (%v)", err)
	}
	hc, err := Connect(url, ConnectOptions{Credentials: hostFile})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(hc.Close)
	hj := openJ(t, hc, Options{})
	cs := gen(3, 0, 20)
	mustAppend(t, hj, cs...)
	var want []core.Event
	for _, c := range cs {
		want = append(want, c.Events...)
	}

	vc, err := Connect(url, ConnectOptions{Credentials: viewFile})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(vc.Close)
	quick := Options{Timeout: time.Second} // a refused publish gets no answer: it times out
	if _, err := Open(context.Background(), vc, testProject, quick); err == nil {
		t.Fatal("a viewer opened the journal for writing (created or updated its stream)")
	}
	vj := openJ(t, vc, Options{ReadOnly: true})
	if got, want := ids(readAll(t, vj, 1)), ids(want); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("the viewer read %v, want %v", got, want)
	}
	before := streamMsgs(t, hj)
	next := hj.Last() + 1
	vj.opts.Timeout = time.Second // see quick
	if err := vj.Append(context.Background(), []core.Commit{note(next, "viewer-write")}); err == nil {
		t.Fatal("a viewer's append succeeded")
	}
	if after := streamMsgs(t, hj); after != before {
		t.Fatalf("the stream went from %d to %d messages after a viewer's append", before, after)
	}

	if nc, err := Connect(url, ConnectOptions{}); err == nil {
		nc.Close()
		t.Fatal("connected to a hub with users without credentials")
	}
	bad := filepath.Join(dir, "bad.creds")
	if err := os.WriteFile(bad, []byte(HostUser+":not-the-password\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if nc, err := Connect(url, ConnectOptions{Credentials: bad}); err == nil {
		nc.Close()
		t.Fatal("connected with a wrong password")
	}
	if err := os.Chmod(hostFile, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadCredentials(hostFile); err == nil || !strings.Contains(err.Error(), "chmod 600") {
		t.Fatalf("a credentials file others may read was taken: %v", err)
	}
}

// startHubWithUsers starts a hub whose users are a host and a viewer,
// their credentials made under dir/creds; it stops when the test ends.
func startHubWithUsers(t *testing.T, dir string) (url, hostFile, viewFile string) {
	t.Helper()
	hostC, hostFile, err := EnsureCredentials(filepath.Join(dir, "creds"), HostUser)
	if err != nil {
		t.Fatal(err)
	}
	viewC, viewFile, err := EnsureCredentials(filepath.Join(dir, "creds"), ViewerUser)
	if err != nil {
		t.Fatal(err)
	}
	srv, url, err := StartServer(filepath.Join(dir, "js"), ServerOptions{Users: []ServerUser{
		{Credentials: hostC}, {Credentials: viewC, ReadOnly: true}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Shutdown(); srv.WaitForShutdown() })
	return url, hostFile, viewFile
}
