package natsjournal

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
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

// startHubWithUsers starts a hub whose users are a host, a sender and a
// viewer, their credentials made under dir/creds (the sender's is
// dir/creds/sender.creds); it stops when the test ends.
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
	sendC, _, err := EnsureCredentials(filepath.Join(dir, "creds"), SenderUser)
	if err != nil {
		t.Fatal(err)
	}
	srv, url, err := StartServer(filepath.Join(dir, "js"), ServerOptions{Users: []ServerUser{
		{Credentials: hostC}, {Credentials: viewC, ReadOnly: true}, {Credentials: sendC, Sender: true}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Shutdown(); srv.WaitForShutdown() })
	return url, hostFile, viewFile
}

// A sender (a teammate's laptop) steers agents from afar: its commands
// reach the owner and its keys reach a terminal; it writes nothing the
// hub stores: no journal append (the stream is unchanged), no lease, no
// snapshot.
func TestSenderSendsAndCannotWrite(t *testing.T) {
	dir := t.TempDir()
	url, hostFile, _ := startHubWithUsers(t, dir)
	sendFile := filepath.Join(dir, "creds", SenderUser+".creds")
	dial := func(file string) *nats.Conn {
		nc, err := Connect(url, ConnectOptions{Credentials: file})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(nc.Close)
		return nc
	}
	hc := dial(hostFile)
	o := startOwner(t, hc)
	f := &fakeTerms{}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan struct{})
	go func() { _ = ServeTerminals(ctx, hc, remoteProject, f); close(served) }()
	defer func() { cancel(); <-served }()

	sc := dial(sendFile)
	r := openRemote(t, sc, RemoteOptions{})
	if rc, err := r.Submit(ctx, createCmd("cmd-s1", "t-sent")); err != nil || rc.Thread != "t-sent" {
		t.Fatalf("a sender's command: %+v, %v", rc, err)
	}
	var err error
	for try := 0; try < 100; try++ { // until the owner's subscriptions are up
		if err = r.TerminalInput(ctx, "sh", []byte("y\r")); !errors.Is(err, core.ErrNoTerminal) {
			break
		}
	}
	f.mu.Lock()
	typed := string(f.typed)
	f.mu.Unlock()
	if err != nil || typed != "y\r" {
		t.Fatalf("a sender's keys: %q reached the terminal (%v)", typed, err)
	}

	before, msgs := o.j.Last(), streamMsgs(t, o.j)
	quick := Options{ReadOnly: true, Timeout: time.Second} // a refused publish gets no answer: it times out
	sj := openProject(t, sc, remoteProject, quick)
	sj.opts.ReadOnly = false
	if err := sj.Append(ctx, []core.Commit{note(before+1, "forged")}); err == nil {
		t.Fatal("a sender appended to the journal")
	}
	if _, err := AcquireLease(ctx, sc, remoteProject, "laptop", LeaseOptions{TTL: time.Second, NoRenew: true}); err == nil {
		t.Fatal("a sender took the project's lease")
	}
	if err := sj.SaveSnapshot(core.NewState()); err == nil {
		t.Fatal("a sender saved a snapshot")
	}
	if after := streamMsgs(t, o.j); after != msgs {
		t.Fatalf("the journal went from %d to %d messages after a sender's writes", msgs, after)
	}
	if rc, err := r.Submit(ctx, createCmd("cmd-s2", "t-after")); err != nil || rc.Seq <= before {
		t.Fatalf("the owner after a sender's refused writes: %+v, %v", rc, err)
	}
}
