package workers

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestWorkerRefuses(t *testing.T) {
	ws := tempWorkspace(t)
	outside := tempWorkspace(t)
	writeFile(t, filepath.Join(outside, "secret.txt"), "secret")
	writeFile(t, filepath.Join(ws, "a.txt"), "a")
	os.Symlink(outside, filepath.Join(ws, "out"))
	os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(ws, "secret-link"))
	os.Symlink(filepath.Join(outside, "nothing"), filepath.Join(ws, "dangling"))

	key, _ := NewKey()
	other, _ := NewKey()
	w := startRaw(t, ws, key)
	later := time.Now().Add(time.Minute)
	grant := func(action string, a Args) Grant {
		return Grant{Task: "t1", Step: 1, Action: action, Target: TargetOf(action, a), Nonce: NewNonce(), Expiry: later}
	}
	read := func(path string) (string, Args) { return ActionReadFile, Args{Path: path} }

	cases := []struct {
		name   string
		action string
		args   Args
		token  func(action string, a Args) string
		want   string
	}{
		{"missing token", ActionReadFile, Args{Path: "a.txt"},
			func(string, Args) string { return "" }, "capability token missing"},
		{"forged token", ActionReadFile, Args{Path: "a.txt"},
			func(ac string, a Args) string { return Sign(other, grant(ac, a)) }, "capability token forged"},
		{"garbage token", ActionReadFile, Args{Path: "a.txt"},
			func(string, Args) string { return "v1.!!!.???" }, "capability token malformed"},
		{"expired token", ActionReadFile, Args{Path: "a.txt"},
			func(ac string, a Args) string {
				g := grant(ac, a)
				g.Expiry = time.Now().Add(-time.Second)
				return Sign(key, g)
			}, "capability token expired"},
		{"token for another path", ActionReadFile, Args{Path: "a.txt"},
			func(string, Args) string { return Sign(key, grant(read("b.txt"))) }, `token is for another path than "a.txt"`},
		{"token for another action", ActionWriteFile, Args{Path: "a.txt", Content: "x"},
			func(string, Args) string { return Sign(key, grant(read("a.txt"))) }, "token is for action read_file, not write_file"},
		{"token for another command", ActionRunCommand, Args{Command: "touch pwned"},
			func(string, Args) string { return Sign(key, grant(ActionRunCommand, Args{Command: "ls"})) }, "another command"},
		{"dot-dot escape", ActionReadFile, Args{Path: "../x"}, nil, `refused path "../x": it leaves the workspace through ".."`},
		{"nested dot-dot escape", ActionWriteFile, Args{Path: "sub/../../x", Content: "x"}, nil, "leaves the workspace"},
		{"absolute outside", ActionReadFile, Args{Path: filepath.Join(outside, "secret.txt")}, nil, "absolute path outside the workspace"},
		{"symlinked dir outside", ActionReadFile, Args{Path: "out/secret.txt"}, nil, "a symlink on it leads outside the workspace"},
		{"symlinked file outside", ActionReadFile, Args{Path: "secret-link"}, nil, "a symlink on it leads outside the workspace"},
		{"new file under symlink outside", ActionWriteFile, Args{Path: "out/new.txt", Content: "x"}, nil, "leads outside the workspace"},
		{"dangling symlink", ActionWriteFile, Args{Path: "dangling", Content: "x"}, nil, "symlink whose target does not exist"},
		{"list outside", ActionListDir, Args{Path: "out"}, nil, "leads outside the workspace"},
		{"search outside", ActionSearch, Args{Pattern: "secret", Path: ".."}, nil, "leaves the workspace"},
		{"command cwd outside", ActionRunCommand, Args{Command: "cat secret.txt", Cwd: "out"}, nil, "leads outside the workspace"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			token := Sign(key, grant(tc.action, tc.args))
			if tc.token != nil {
				token = tc.token(tc.action, tc.args)
			}
			res := w.send(t, Execute{TaskID: "t1", Step: 1, Action: tc.action, Args: tc.args, Capability: token})
			if res.Status != StatusRefused || !strings.Contains(res.Error, tc.want) {
				t.Fatalf("got %s %q, want refused containing %q", res.Status, res.Error, tc.want)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(outside, "new.txt")); err == nil {
		t.Fatal("a refused write created a file outside the workspace")
	}
	if _, err := os.Stat(filepath.Join(outside, "nothing")); err == nil {
		t.Fatal("a write through a dangling symlink created its target")
	}
	// The same worker still serves a valid request.
	res := w.send(t, Execute{TaskID: "t1", Step: 2, Action: ActionReadFile, Args: Args{Path: "a.txt"},
		Capability: Sign(key, Grant{Task: "t1", Step: 2, Action: ActionReadFile, Target: "a.txt", Nonce: NewNonce(), Expiry: later})})
	if res.Status != StatusOK || res.Output != "a" {
		t.Fatalf("valid request after refusals = %+v", res)
	}
}

func TestVerify(t *testing.T) {
	key, _ := NewKey()
	now := time.Unix(1_700_000_000, 0)
	g := Grant{Task: "t", Step: 3, Action: ActionWriteFile, Target: "a/b", Nonce: NewNonce(), Expiry: now.Add(time.Minute)}
	tok := Sign(key, g)
	ask := g
	ask.Expiry, ask.Nonce = time.Time{}, ""
	if got, err := Verify(key, tok, ask, now, time.Minute); err != nil || got != g {
		t.Fatalf("valid token: %+v, %v; want %+v", got, err, g)
	}
	mod := func(f func(*Grant)) Grant { c := ask; f(&c); return c }
	other, _ := NewKey()
	for _, tc := range []struct {
		name  string
		key   []byte
		token string
		g     Grant
		now   time.Time
		want  error
	}{
		{"missing", key, "", ask, now, ErrTokenMissing},
		{"no prefix", key, strings.TrimPrefix(tok, "v2."), ask, now, ErrTokenMalformed},
		{"other key", other, tok, ask, now, ErrTokenForged},
		{"no key", nil, tok, ask, now, ErrTokenForged},
		{"tampered mac", key, tok[:len(tok)-2] + "AA", ask, now, ErrTokenForged},
		{"other task", key, tok, mod(func(g *Grant) { g.Task = "u" }), now, ErrTokenMismatch},
		{"other step", key, tok, mod(func(g *Grant) { g.Step = 4 }), now, ErrTokenMismatch},
		{"other action", key, tok, mod(func(g *Grant) { g.Action = ActionEditFile }), now, ErrTokenMismatch},
		{"other target", key, tok, mod(func(g *Grant) { g.Target = "a/c" }), now, ErrTokenMismatch},
		{"other expiry", key, tok, mod(func(g *Grant) { g.Expiry = now }), now, ErrTokenMismatch},
		{"other nonce", key, tok, mod(func(g *Grant) { g.Nonce = NewNonce() }), now, ErrTokenMismatch},
		{"no nonce", key, Sign(key, mod(func(g *Grant) { g.Nonce, g.Expiry = "", now.Add(time.Minute) })), ask, now, ErrTokenMalformed},
		{"short nonce", key, Sign(key, mod(func(g *Grant) { g.Nonce, g.Expiry = "abc", now.Add(time.Minute) })), ask, now, ErrTokenMalformed},
		{"v1 token", key, "v1" + strings.TrimPrefix(tok, "v2"), ask, now, ErrTokenMalformed},
		{"expired", key, tok, ask, now.Add(time.Minute), ErrTokenExpired},
		{"lives too long", key, tok, ask, now.Add(-time.Second), ErrTokenLifetime},
	} {
		if _, err := Verify(tc.key, tc.token, tc.g, tc.now, time.Minute); !errors.Is(err, tc.want) {
			t.Errorf("%s: Verify = %v, want %v", tc.name, err, tc.want)
		}
	}
}

func TestResolveAllowsInsidePaths(t *testing.T) {
	ws := tempWorkspace(t)
	os.MkdirAll(filepath.Join(ws, "real/sub"), 0o755)
	os.Symlink("real", filepath.Join(ws, "alias"))
	w, err := openWorkspace(ws)
	if err != nil {
		t.Fatal(err)
	}
	defer w.close()
	for in, want := range map[string]string{
		".":                          ".",
		"a/../b.txt":                 "b.txt",
		"alias/sub/new.txt":          "real/sub/new.txt",
		filepath.Join(ws, "x/y.txt"): "x/y.txt",
		"new/dir/file":               "new/dir/file",
	} {
		got, err := w.resolve(in)
		if err != nil || got != want {
			t.Errorf("resolve(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}
