package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nexus-tui/nexus/internal/host"
	bolt "go.etcd.io/bbolt"
)

// TestE2ECrashResume kills the host with SIGKILL during a slow run; `nexus
// resume` finishes it with a provider_recovery attempt, and every id
// printed before the kill is in the journal.
func TestE2ECrashResume(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	serve := e.bg("serve")
	eventually(t, "host serving", func() bool {
		_, err := os.Stat(filepath.Join(e.dir, host.SocketName))
		return err == nil
	})
	th := e.must("thread", "new")
	th2 := e.must("thread", "new", "--title", "second")
	waiter := e.bg("send", th, "#slow=20s #plan=3 long job")
	eventually(t, "run 1 running", func() bool {
		v := e.show(th)
		return len(v.Runs) == 1 && v.Runs[0].Status == "running" && len(v.Todos) == 1
	})
	if err := serve.c.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	serve.wait(t)
	if r := waiter.wait(t); r.code == 0 {
		t.Fatalf("send survived its host: %+v", r)
	}
	v := e.show(th)
	if v.Runs[0].Status != "interrupted" {
		t.Fatalf("after the crash run 1 is %s, want interrupted (recoverable)", v.Runs[0].Status)
	}
	if v2 := e.show(th2); v2.Title != "second" {
		t.Fatalf("acknowledged thread %s lost: %+v", th2, v2)
	}
	out := e.must("resume", th)
	if !strings.Contains(out, `acted on: "long job"`) {
		t.Fatalf("resume output %q", out)
	}
	r := e.show(th).Runs[0]
	if r.Status != "completed" || len(r.Attempts) != 2 || r.Attempts[1].Reason != "provider_recovery" {
		t.Fatalf("after resume: %+v", r)
	}
	if r.Attempts[0].Status != "interrupted" {
		t.Fatalf("first attempt %+v", r.Attempts[0])
	}
	if out := e.must("verify"); !strings.HasPrefix(out, "ok:") {
		t.Fatalf("verify after crash: %q", out)
	}
}

// TestE2EVerifyCorruption flips one byte of a stored event: verify exits 1
// naming that seq; --repair keeps the original aside and truncates.
func TestE2EVerifyCorruption(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	th := e.must("thread", "new")
	e.must("send", th, "hello")
	healthy := e.must("verify")
	if !strings.HasPrefix(healthy, "ok:") {
		t.Fatalf("verify on a healthy journal: %q", healthy)
	}
	events := strings.Fields(healthy)[1]
	const bad = 5
	db, err := bolt.Open(filepath.Join(e.dir, "journal.db"), 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte("events"))
		k := []byte{0, 0, 0, 0, 0, 0, 0, bad}
		v := append([]byte(nil), b.Get(k)...)
		v[len(v)-3] ^= 0x01
		return b.Put(k, v)
	})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	r := e.run("verify")
	if r.code != 1 || !strings.Contains(r.err, "seq 5") || !strings.Contains(r.err, "--repair") {
		t.Fatalf("verify on a flipped byte: exit %d, stderr %q", r.code, r.err)
	}
	// The flip went through bbolt, which wrote the page anew: the freed
	// page still holds the intact event, and the repair takes it back
	// (TestE2EDamagedJournal damages every copy).
	out := e.must("verify", "--repair")
	if !strings.HasPrefix(out, "repaired: kept "+events+" events; the original is kept as ") {
		t.Fatalf("repair: %q", out)
	}
	backups, _ := filepath.Glob(filepath.Join(e.dir, "journal.db.corrupt-*"))
	if len(backups) != 1 {
		t.Fatalf("repair kept %d copies of the original", len(backups))
	}
	if out := e.must("verify"); !strings.HasPrefix(out, "ok: "+events+" events") {
		t.Fatalf("verify after repair: %q", out)
	}
}

func TestE2EStateDirModes(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.must("thread", "new")
	fi, err := os.Stat(e.dir)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o700 {
		t.Fatalf("state dir mode %o, want 700", fi.Mode().Perm())
	}
	entries, _ := os.ReadDir(e.dir)
	for _, en := range entries {
		info, _ := en.Info()
		if info.Mode().IsRegular() && info.Mode().Perm() != 0o600 {
			t.Errorf("%s mode %o, want 600", en.Name(), info.Mode().Perm())
		}
	}
	link := filepath.Join(filepath.Dir(e.dir), "linked")
	if err := os.Symlink(e.dir, link); err != nil {
		t.Fatal(err)
	}
	r := e.run("--state-dir", link, "thread", "list")
	if r.code == 0 || !strings.Contains(r.err, "symlink") {
		t.Fatalf("symlinked state dir: exit %d stderr %q", r.code, r.err)
	}
}

// TestE2ETwoProcessesOneHost starts several commands at once on an empty
// state dir: exactly one becomes the host, the others its clients, and
// every thread lands in the one journal.
func TestE2ETwoProcessesOneHost(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var ps []*bgProc
	for i := 0; i < 4; i++ {
		ps = append(ps, e.bg("thread", "new"))
	}
	ids := map[string]bool{}
	for _, p := range ps {
		r := p.wait(t)
		if r.code != 0 {
			t.Fatalf("concurrent thread new: exit %d: %s", r.code, r.err)
		}
		ids[strings.TrimSpace(r.out)] = true
	}
	var rows []struct{ ID string }
	if err := json.Unmarshal([]byte(e.must("thread", "list", "--json")), &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 4 || len(ids) != 4 {
		t.Fatalf("%d threads listed, %d ids printed, want 4", len(rows), len(ids))
	}
	for _, r := range rows {
		if !ids[r.ID] {
			t.Fatalf("thread %s listed but never printed", r.ID)
		}
	}
}

// TestE2EBadInput: each bad input gets a one-line error and the right exit
// code, and the journal's last event is unchanged.
func TestE2EBadInput(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	th := e.must("thread", "new")
	e.must("send", th, "hello")
	before := e.lastEvent()
	huge := strings.Repeat("x", 256<<10+1)
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"send", th, ""}, 1, "empty"},
		{[]string{"send", th, "   \t "}, 1, "empty"},
		{[]string{"send", "t-nope", "hi"}, 1, "unknown thread"},
		{[]string{"respond", "R77", "--allow"}, 1, "unknown request"},
		{[]string{"send", th, "hi", "--bogus"}, 2, "flag provided but not defined"},
		{[]string{"send", th, "hi", "--mode", "sideways"}, 2, "unknown mode"},
		{[]string{"send", th, "bad \xff\xfe utf8"}, 1, "UTF-8"},
		{[]string{"frobnicate"}, 2, "unknown command"},
		{[]string{"respond", "R1"}, 2, "exactly one"},
		{[]string{"thread", "show"}, 2, "usage"},
		{[]string{"queue", th, "hold", "x"}, 2, "not a run number"},
	}
	for _, c := range cases {
		r := e.run(c.args...)
		name := strings.Join(c.args, " ")
		if len(name) > 60 {
			name = name[:60]
		}
		if r.code != c.code {
			t.Errorf("%s: exit %d, want %d (stderr %q)", name, r.code, c.code, r.err)
		}
		if !strings.HasPrefix(r.err, "nexus: ") || strings.Count(r.err, "\n") != 1 || !strings.Contains(r.err, c.want) {
			t.Errorf("%s: stderr %q, want one line with %q", name, r.err, c.want)
		}
	}
	if r := e.runStdin(huge, "send", th, "-"); r.code != 2 || !strings.Contains(r.err, fmt.Sprintf("is %d bytes, over the limit", len(huge))) {
		t.Errorf("oversized message: exit %d stderr %q", r.code, r.err)
	}
	// A malformed request on the socket, sent to a live host.
	serve := e.bg("serve")
	eventually(t, "host serving", func() bool {
		_, err := os.Stat(filepath.Join(e.dir, host.SocketName))
		return err == nil
	})
	conn, err := net.Dial("unix", filepath.Join(e.dir, host.SocketName))
	if err != nil {
		t.Fatal(err)
	}
	conn.Write([]byte("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"submit\",\"params\":{\"kind\":\n"))
	conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	buf := make([]byte, 4096)
	n, _ := conn.Read(buf)
	conn.Close()
	if !bytes.Contains(buf[:n], []byte("-32700")) {
		t.Fatalf("malformed socket request answered %q, want a parse error", buf[:n])
	}
	serve.c.Process.Signal(syscall.SIGTERM)
	if r := serve.wait(t); r.code != 0 {
		t.Fatalf("serve exit %d on SIGTERM: %s", r.code, r.err)
	}
	if after := e.lastEvent(); after != before {
		t.Fatalf("bad input changed the journal:\nbefore %s\nafter  %s", before, after)
	}
}

func TestE2EExportImport(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	th := e.must("thread", "new", "--title", "exported")
	e.must("send", th, "hello")
	file := filepath.Join(t.TempDir(), "journal.nxa")
	e.must("export", file)
	if r := e.run("export", file); r.code != 1 || !strings.Contains(r.err, "never overwrites") {
		t.Fatalf("export over a file: exit %d %q", r.code, r.err)
	}
	other := newEnv(t)
	other.must("import", file)
	if v := other.show(th); v.Title != "exported" || v.Runs[0].Status != "completed" {
		t.Fatalf("imported thread %+v", v)
	}
	if r := other.run("import", file); r.code != 1 {
		t.Fatalf("import into a non-empty journal: exit %d", r.code)
	}
	if out := other.must("verify"); !strings.HasPrefix(out, "ok:") {
		t.Fatalf("verify after import: %q", out)
	}
}

// TestE2EServeAndClientLog: a client follows the host's journal with
// `log --follow --json` and sees a new thread appear.
func TestE2EServeAndClientLog(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	serve := e.bg("serve")
	eventually(t, "host serving", func() bool {
		_, err := os.Stat(filepath.Join(e.dir, host.SocketName))
		return err == nil
	})
	follow := e.bg("log", "--follow", "--json")
	th := e.must("thread", "new", "--title", "followed")
	eventually(t, "log --follow shows the thread", func() bool {
		return strings.Contains(follow.so.String(), `"followed"`)
	})
	follow.c.Process.Signal(syscall.SIGTERM)
	follow.wait(t)
	for _, l := range strings.Split(strings.TrimSpace(follow.so.String()), "\n") {
		var ev map[string]any
		if err := json.Unmarshal([]byte(l), &ev); err != nil {
			t.Fatalf("log --json line is not JSON: %q", l)
		}
	}
	serve.c.Process.Signal(syscall.SIGTERM)
	serve.wait(t)
	if v := e.show(th); v.Title != "followed" {
		t.Fatalf("thread lost after serve stopped: %+v", v)
	}
}

// TestE2ELockedByUnresponsiveHost: a host that holds the journal but does
// not answer within 1 s makes other invocations exit 4 naming its pid.
func TestE2ELockedByUnresponsiveHost(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	serve := e.bg("serve")
	eventually(t, "host serving", func() bool { return strings.Contains(serve.so.String(), "serving") })
	pid := serve.c.Process.Pid
	syscall.Kill(pid, syscall.SIGSTOP)
	r := e.run("thread", "list")
	syscall.Kill(pid, syscall.SIGCONT)
	if r.code != 4 || !strings.Contains(r.err, fmt.Sprint(pid)) {
		t.Fatalf("against a stopped host: exit %d, stderr %q; want exit 4 naming pid %d", r.code, r.err, pid)
	}
	serve.c.Process.Signal(syscall.SIGTERM)
	if res := serve.wait(t); res.code != 0 {
		t.Fatalf("serve exit %d: %s", res.code, res.err)
	}
}
