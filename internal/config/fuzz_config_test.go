package config

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// errLine is the shape of every config error: the file, maybe a line,
// a message, all on one line.
var errLine = regexp.MustCompile(`^config /f\.toml(:[1-9][0-9]*)?: [^\n]+$`)

// FuzzConfig: no input panics; whatever Parse returns is either one
// error line or a config that holds only allowed values; and the same
// input gives the same answer (the first error in file order, whatever
// Go's map order).
func FuzzConfig(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.toml")
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("[profiles.\"a,b\"]\nkind = 1\n[profiles.\"-\"]\n"))
	f.Add([]byte("[profiles.x.env]\n\"\" = \"\"\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := Parse("/f.toml", data, readyMade)
		if err != nil {
			if !errLine.MatchString(err.Error()) {
				t.Fatalf("error is not one config line: %q", err.Error())
			}
			if _, err2 := Parse("/f.toml", data, readyMade); err2 == nil || err2.Error() != err.Error() {
				t.Fatalf("the same input gave %q, then %v", err, err2)
			}
			return
		}
		if cfg.Theme != "" && !slices.Contains(Themes, cfg.Theme) {
			t.Fatalf("theme %q", cfg.Theme)
		}
		if n := cfg.UIScrollback; n != nil && (*n < 0 || *n > MaxScrollback) {
			t.Fatalf("ui.scrollback %d", *n)
		}
		for _, e := range cfg.CommandEnv {
			if e == "*" || !envEntryRE.MatchString(e) {
				t.Fatalf("commands.env entry %q", e)
			}
		}
		for _, p := range cfg.Profiles {
			if !nameRE.MatchString(p.Name) || !slices.Contains(Kinds, p.Kind) {
				t.Fatalf("profile %q kind %q", p.Name, p.Kind)
			}
			if rm, ok := readyMade[p.Name]; ok != p.ReadyMade || (ok && rm != p.Kind) {
				t.Fatalf("profile %q ready-made %v kind %q", p.Name, p.ReadyMade, p.Kind)
			}
			if p.Command != nil && (len(p.Command) == 0 || strings.TrimSpace(p.Command[0]) == "") {
				t.Fatalf("profile %q command %q", p.Name, p.Command)
			}
			if p.Kind == "acp" && !p.ReadyMade && p.Command == nil {
				t.Fatalf("custom acp profile %q without a command", p.Name)
			}
			if p.Approval != "" && !slices.Contains(Approvals, p.Approval) {
				t.Fatalf("profile %q approval %q", p.Name, p.Approval)
			}
			if p.Model != "" && p.Kind != "codex" && p.Kind != "claude" {
				t.Fatalf("profile %q of kind %s has a model", p.Name, p.Kind)
			}
			for _, kv := range p.Environ() {
				if k, _, _ := strings.Cut(kv, "="); k == "" || strings.ContainsRune(kv, 0) {
					t.Fatalf("profile %q env %q", p.Name, kv)
				}
			}
		}
	})
}
