package workers

import (
	"path/filepath"
	"testing"
)

func TestGitignoreSubset(t *testing.T) {
	for _, tc := range []struct {
		name     string
		patterns string
		path     string
		dir      bool
		want     bool
	}{
		{"blank and comment lines", "\n# x.go\n   \n", "x.go", false, false},
		{"plain name at any depth", "*.log", "a/b/c.log", false, true},
		{"plain name, other ext", "*.log", "a/b/c.go", false, false},
		{"question mark", "?.txt", "a.txt", false, true},
		{"question mark needs one char", "?.txt", "ab.txt", false, false},
		{"star stops at slash", "a/*.go", "a/b/c.go", false, false},
		{"star in anchored path", "a/*.go", "a/c.go", false, true},
		{"leading slash anchors", "/build", "build", true, true},
		{"leading slash anchors, not deeper", "/build", "src/build", true, false},
		{"no slash matches deeper", "build", "src/build", true, true},
		{"middle slash anchors", "doc/frotz", "a/doc/frotz", false, false},
		{"trailing slash: dirs only", "out/", "out", true, true},
		{"trailing slash: not files", "out/", "out", false, false},
		{"leading double star", "**/foo", "a/b/foo", false, true},
		{"leading double star, top", "**/foo", "foo", false, true},
		{"double star dir", "**/node_modules/", "x/node_modules", true, true},
		{"trailing double star", "abc/**", "abc/x/y", false, true},
		{"trailing double star, not the dir", "abc/**", "abc", true, false},
		{"middle double star", "a/**/b", "a/x/y/b", false, true},
		{"middle double star, zero dirs", "a/**/b", "a/b", false, true},
		{"negation re-includes", "*.log\n!keep.log", "keep.log", false, false},
		{"negation then re-exclude", "*.log\n!keep.log\nkeep.log", "keep.log", false, true},
		{"escaped bang", `\!important`, "!important", false, true},
		{"escaped hash", `\#x`, "#x", false, true},
		{"character class", "file[0-9].txt", "file7.txt", false, true},
		{"negated class", "file[!0-9].txt", "file7.txt", false, false},
		{"trailing spaces trimmed", "a.txt   ", "a.txt", false, true},
		{"crlf line ends", "a.txt\r\nb.txt\r\n", "b.txt", false, true},
		{"regexp metachars are literal", "a+b(c).txt", "a+b(c).txt", false, true},
		{"dot is literal", "a.txt", "abtxt", false, false},
	} {
		ig := newIgnorer()
		ig.add(".", tc.patterns)
		if got := ig.ignored(tc.path, tc.dir); got != tc.want {
			t.Errorf("%s: %q ignores %q (dir %v) = %v, want %v", tc.name, tc.patterns, tc.path, tc.dir, got, tc.want)
		}
	}
}

func TestGitignoreNestedFilesOverride(t *testing.T) {
	ig := newIgnorer()
	ig.add(".", "*.gen\n/top.txt\n")
	ig.add("sub", "!keep.gen\ntop.txt\n")
	for _, tc := range []struct {
		path string
		want bool
	}{
		{"x.gen", true},
		{"sub/x.gen", true},
		{"sub/keep.gen", false}, // the deeper file wins
		{"top.txt", true},
		{"sub/top.txt", true}, // relative to sub's own file
		{"other/top.txt", false},
	} {
		if got := ig.ignored(tc.path, false); got != tc.want {
			t.Errorf("ignored(%q) = %v, want %v", tc.path, got, tc.want)
		}
	}
}

func TestSearchRespectsGitignore(t *testing.T) {
	ws := tempWorkspace(t)
	for path, content := range map[string]string{
		".gitignore":           "*.log\nbuild/\n/secret.txt\n",
		".git/info/exclude":    "excluded.txt\n",
		".git/config":          "TODO in git dir\n",
		"main.go":              "package main // TODO one\n",
		"debug.log":            "TODO in a log\n",
		"build/out.go":         "TODO in build\n",
		"secret.txt":           "TODO anchored\n",
		"excluded.txt":         "TODO excluded\n",
		"pkg/secret.txt":       "TODO not anchored here\n",
		"pkg/.gitignore":       "!important.log\n",
		"pkg/important.log":    "TODO re-included\n",
		"pkg/binary.dat":       "TODO\x00binary",
		"docs/notes.md":        "nothing here\n",
		"docs/deep/todo.txt":   "a\nb\nTODO three\n",
		"docs/deep/other.log":  "TODO ignored by the root file\n",
		"docs/deep/.gitignore": "",
	} {
		writeFile(t, filepath.Join(ws, path), content)
	}
	p := newTestPool(t, ws)
	res := mustExec(t, p, Step{N: 1, Action: ActionSearch, Args: Args{Pattern: "TODO"}}, nil)
	want := "docs/deep/todo.txt:3:TODO three\nmain.go:1:package main // TODO one\npkg/important.log:1:TODO re-included\npkg/secret.txt:1:TODO not anchored here"
	if res.Status != StatusOK || res.Output != want {
		t.Fatalf("search =\n%s\n(%s)\nwant\n%s", res.Output, res.Error, want)
	}
	res = mustExec(t, p, Step{N: 2, Action: ActionSearch, Args: Args{Pattern: "TODO", Path: "docs/deep"}}, nil)
	if res.Output != "docs/deep/todo.txt:3:TODO three" {
		t.Fatalf("search in docs/deep = %q: the root .gitignore must still apply", res.Output)
	}
	res = mustExec(t, p, Step{N: 3, Action: ActionSearch, Args: Args{Pattern: "(unclosed"}}, nil)
	if res.Status != StatusError || res.Error == "" {
		t.Fatalf("bad pattern = %+v", res)
	}
	res = mustExec(t, p, Step{N: 4, Action: ActionSearch, Args: Args{Pattern: "zzz-nothing"}}, nil)
	if res.Status != StatusOK || res.Output != "no matches" {
		t.Fatalf("no-match search = %+v", res)
	}
}
