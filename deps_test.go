package main

import (
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/nexus-tui/nexus"

// TestImportRules enforces the dependency direction of DESIGN.md §1 with
// `go list -deps`: core (and core/api) use only the standard library;
// store, providers and workers never reach the TUI; the TUI never reaches
// store, providers or workers; only the main package wires everything.
func TestImportRules(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}} {{.Standard}}", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	std := map[string]bool{}
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(l)
		if len(f) == 2 {
			std[f[0]] = f[1] == "true"
		}
	}
	out, err = exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Deps \" \"}}", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	rules := []struct {
		pkg        string // prefix of our package path, relative to the module
		stdOnly    bool
		forbidden  []string
		allowedExt []string
	}{
		{pkg: "core", stdOnly: true},
		{pkg: "internal/journalgen", stdOnly: true},
		// The config file: TOML and nothing of ours; main turns it into
		// provider profiles, so providers and the TUI never see it.
		{pkg: "internal/config", stdOnly: true, allowedExt: []string{"github.com/BurntSushi/toml"}},
		{pkg: "store", forbidden: []string{"providers", "workers", "tui", "themes", "core/api"}},
		{pkg: "providers", forbidden: []string{"store", "tui", "themes", "internal/config"}},
		{pkg: "workers", forbidden: []string{"store", "providers", "tui", "themes"}},
		{pkg: "tui", forbidden: []string{"store", "providers", "workers", "internal/config"}},
		{pkg: "themes", forbidden: []string{"core", "store", "providers", "workers", "tui"}},
	}
	checked := 0
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(l)
		pkg := strings.TrimPrefix(strings.TrimPrefix(f[0], module), "/")
		for _, r := range rules {
			if pkg != r.pkg && !strings.HasPrefix(pkg, r.pkg+"/") {
				continue
			}
			checked++
			for _, dep := range f[1:] {
				ours := strings.HasPrefix(dep, module+"/")
				rel := strings.TrimPrefix(dep, module+"/")
				ext := false
				for _, e := range r.allowedExt {
					ext = ext || dep == e || strings.HasPrefix(dep, e+"/")
				}
				if r.stdOnly && !std[dep] && !ext && !(ours && (rel == "core" || strings.HasPrefix(rel, "core/"))) {
					t.Errorf("%s imports %s: it may use only the standard library, core and %v", pkg, dep, r.allowedExt)
				}
				for _, bad := range r.forbidden {
					if ours && (rel == bad || strings.HasPrefix(rel, bad+"/")) {
						t.Errorf("%s imports %s, which DESIGN.md §1 forbids", pkg, dep)
					}
				}
			}
		}
	}
	if checked < 4 {
		t.Fatalf("only %d packages checked: the rules no longer match the layout", checked)
	}
}
