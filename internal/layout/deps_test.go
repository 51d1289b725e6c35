package layout

import (
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/nexus-tui/nexus"

// natsModules prefixes the import paths of the NATS client and server.
const natsModules = "github.com/nats-io/"

// goList runs go list at the module root (this package is two levels
// down).
func goList(args ...string) ([]byte, error) {
	cmd := exec.Command("go", append([]string{"list"}, args...)...)
	cmd.Dir = "../.."
	return cmd.Output()
}

// TestImportRules enforces the dependency direction of
// docs/ARCHITECTURE.md with `go list -deps`: core (and core/api) use only
// the standard library; store, providers and workers never reach the TUI;
// the TUI never reaches store, providers or workers; internal/host wires
// the kernel to its effects and never reaches the TUI or the command
// line; only internal/cli composes everything, and only package main
// imports it. NATS (team mode) is reached only through store/natsjournal:
// no other package but internal/host, internal/cli and main, which wire
// it, may depend on a nats-io module, so core, tui and the rest never do.
// Every package of the module must match a rule, so a new package cannot
// escape them.
func TestImportRules(t *testing.T) {
	out, err := goList("-deps", "-f", "{{.ImportPath}} {{.Standard}}", "./...")
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
	out, err = goList("-f", "{{.ImportPath}} {{join .Deps \" \"}}", "./...")
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
		{pkg: "internal/failpoint", stdOnly: true},
		// A FUSE file system that loses what was not fsynced.
		{pkg: "internal/powerloss", stdOnly: true, allowedExt: []string{"github.com/hanwen/go-fuse/v2", "golang.org/x/sys"}},
		// Test-only trees: their non-test code is a package doc.
		{pkg: "internal/e2e", stdOnly: true},
		{pkg: "internal/layout", stdOnly: true},
		{pkg: "internal/journalgen", stdOnly: true},
		{pkg: "internal/journaldamage", stdOnly: true},
		// Cleaning untrusted text for a terminal: the UI and the command
		// line share it.
		{pkg: "internal/textsafe", forbidden: []string{"core", "store", "providers", "workers", "tui", "themes",
			"internal/host", "internal/cli", "internal/config"}},
		// The config file: TOML and nothing of ours; internal/host turns
		// it into provider profiles, so providers and the TUI never see it.
		{pkg: "internal/config", stdOnly: true, allowedExt: []string{"github.com/BurntSushi/toml"}},
		{pkg: "store", forbidden: []string{"providers", "workers", "tui", "themes", "core/api", "internal/host", "internal/cli"}},
		{pkg: "providers", forbidden: []string{"store", "tui", "themes", "internal/config", "internal/host", "internal/cli"}},
		{pkg: "workers", forbidden: []string{"store", "providers", "tui", "themes", "internal/host", "internal/cli"}},
		{pkg: "tui", forbidden: []string{"store", "providers", "workers", "internal/config", "internal/host", "internal/cli"}},
		{pkg: "themes", forbidden: []string{"core", "store", "providers", "workers", "tui", "internal/host", "internal/cli"}},
		// The host: journal, Runner, providers, checkpoints, socket.
		{pkg: "internal/host", forbidden: []string{"tui", "themes", "internal/cli"}},
		// The command line composes everything.
		{pkg: "internal/cli"},
		// Package main: checked below, by its direct imports.
		{pkg: ""},
	}
	// The packages that may depend on NATS (Deps is transitive, so the
	// ones that wire store/natsjournal are here too).
	natsOK := map[string]bool{"store/natsjournal": true, "internal/host": true, "internal/cli": true, "": true}
	checked := 0
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(l)
		pkg := strings.TrimPrefix(strings.TrimPrefix(f[0], module), "/")
		for _, dep := range f[1:] {
			if strings.HasPrefix(dep, natsModules) && !natsOK[pkg] {
				t.Errorf("%s imports %s: only store/natsjournal (and internal/host and internal/cli, which wire it) may reach NATS", pkg, dep)
				break
			}
		}
		matched := false
		for _, r := range rules {
			if pkg != r.pkg && (r.pkg == "" || !strings.HasPrefix(pkg, r.pkg+"/")) {
				continue
			}
			matched = true
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
						t.Errorf("%s imports %s, which docs/ARCHITECTURE.md forbids", pkg, dep)
					}
				}
				if ours && pkg != "" && rel == "internal/cli" {
					t.Errorf("%s imports internal/cli: only package main may", pkg)
				}
			}
		}
		if !matched {
			t.Errorf("package %q matches no import rule: add one to this test", pkg)
		}
	}
	// Package main only hands its arguments to the command line.
	out, err = goList("-f", "{{join .Imports \" \"}}", ".")
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.HasPrefix(dep, module+"/") && dep != module+"/internal/cli" {
			t.Errorf("package main imports %s: it may import only internal/cli of ours", dep)
		}
	}
	if checked < 12 {
		t.Fatalf("only %d packages checked: the rules no longer match the layout", checked)
	}
}
