package tui

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite tui/testdata/*.golden from the current screens")

// TestGoldenScreens renders fixed states with the none theme at fixed
// sizes and compares the plain text with tui/testdata/*.golden. Run
// `go test ./tui -run Golden -update` after an intended change and
// review the diff.
func TestGoldenScreens(t *testing.T) {
	cases := []struct {
		name string
		w, h int
		keys []string
	}{
		{"main_80x24", 80, 24, nil},
		{"main_120x40", 120, 40, nil},
		{"approval_80x24", 80, 24, []string{"ctrl+o"}},
		{"approval_120x40", 120, 40, []string{"ctrl+o"}},
		{"newthread_120x40", 120, 40, []string{"ctrl+n"}},
		{"help_120x40", 120, 40, []string{"f1"}},
		{"quit_80x24", 80, 24, []string{"ctrl+c"}},
		{"threads_focus_120x40", 120, 40, []string{"esc", "down"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			hs := newHarness(t, demoState(t), tc.w, tc.h)
			hs.m.opts.Workspace = "/work/demo" // not the temp dir: screens must not vary
			hs.press(tc.keys...)
			hs.checkScreen(tc.w, tc.h)
			got := hs.screen() + "\n"
			path := filepath.Join("testdata", tc.name+".golden")
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("screen %s differs from %s (run with -update if intended)\n got:\n%s\nwant:\n%s",
					tc.name, path, got, want)
			}
		})
	}
}

func TestGoldenFilesHaveNoTrailingJunk(t *testing.T) {
	// Every golden screen is exactly its size; a hand edit that breaks a
	// line shows up here rather than as a puzzling diff.
	files, _ := filepath.Glob(filepath.Join("testdata", "*.golden"))
	if len(files) == 0 {
		t.Skip("no golden files yet")
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
		if strings.Contains(f, "80x24") && len(lines) != 24 {
			t.Errorf("%s has %d lines, want 24", f, len(lines))
		}
		if strings.Contains(f, "120x40") && len(lines) != 40 {
			t.Errorf("%s has %d lines, want 40", f, len(lines))
		}
	}
}
