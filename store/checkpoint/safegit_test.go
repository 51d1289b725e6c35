package checkpoint

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// commitHooks are hooks the operations of the package would trigger if
// hooks ran: the index's, checkout's and every commit's and merge's.
var commitHooks = []string{"post-index-change", "post-checkout", "reference-transaction", "pre-commit",
	"prepare-commit-msg", "commit-msg", "post-commit", "pre-merge-commit", "post-merge"}

// Git never runs what a repository names: each case plants one way git
// can be made to run a program (in the repository's config, an included
// file, attributes, hooks), then runs
// every operation nexus runs on a workspace (capture, diff with its
// patch, restore, a worktree). The planted program would create a marker
// file; none may exist afterwards, and the operations still work.
func TestGitNeverRunsWhatARepositoryNames(t *testing.T) {
	for _, tc := range []struct {
		name  string
		plant func(t *testing.T, repo, marker string)
	}{
		{"core.fsmonitor", func(t *testing.T, repo, marker string) {
			gitT(t, repo, "config", "core.fsmonitor", "touch "+marker+"; false")
		}},
		{"a hook in .git/hooks", func(t *testing.T, repo, marker string) {
			for _, h := range commitHooks {
				writeFile(t, repo, ".git/hooks/"+h, "#!/bin/sh\ntouch "+marker+"\n")
				os.Chmod(filepath.Join(repo, ".git/hooks", h), 0o755)
			}
		}},
		{"core.hooksPath", func(t *testing.T, repo, marker string) {
			hooks := t.TempDir()
			for _, h := range commitHooks {
				os.WriteFile(filepath.Join(hooks, h), []byte("#!/bin/sh\ntouch "+marker+"\n"), 0o755)
			}
			gitT(t, repo, "config", "core.hooksPath", hooks)
		}},
		{"a clean filter", func(t *testing.T, repo, marker string) {
			writeFile(t, repo, ".gitattributes", "* filter=evil\n")
			gitT(t, repo, "config", "filter.evil.clean", "touch "+marker+"; cat")
			gitT(t, repo, "config", "filter.evil.required", "true")
		}},
		{"a smudge filter", func(t *testing.T, repo, marker string) {
			writeFile(t, repo, ".gitattributes", "*.txt filter=Evil.Dots\n")
			gitT(t, repo, "config", "filter.Evil.Dots.smudge", "touch "+marker+"; cat")
		}},
		{"a process filter", func(t *testing.T, repo, marker string) {
			writeFile(t, repo, ".gitattributes", "* filter=proc\n")
			gitT(t, repo, "config", "filter.proc.process", "sh -c 'touch "+marker+"'")
		}},
		{"a custom merge driver", func(t *testing.T, repo, marker string) {
			writeFile(t, repo, ".gitattributes", "* merge=evil\n")
			gitT(t, repo, "config", "merge.evil.driver", "touch "+marker+"; false")
		}},
		{"a filter in an included file", func(t *testing.T, repo, marker string) {
			inc := filepath.Join(t.TempDir(), "inc")
			os.WriteFile(inc, []byte("[filter \"inc\"]\n\tclean = touch "+marker+"; cat\n\tsmudge = touch "+marker+"; cat\n"), 0o644)
			writeFile(t, repo, ".gitattributes", "* filter=inc\n")
			gitT(t, repo, "config", "include.path", inc)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			repo := newRepo(t)
			writeFile(t, repo, "a.txt", "one\n")
			gitT(t, repo, "add", "a.txt")
			gitT(t, repo, "commit", "-q", "-m", "a")
			marker := filepath.Join(t.TempDir(), "PWNED")
			m := newManager(t, Options{})
			base := capture(t, m, repo, "t1", "base")
			tc.plant(t, repo, marker)
			writeFile(t, repo, "a.txt", "two\n")
			writeFile(t, repo, "b.txt", "new\n")
			run1 := capture(t, m, repo, "t1", "run1")
			ctx := context.Background()
			if d, err := m.Diff(ctx, repo, base.Commit, run1.Commit); err != nil || !strings.Contains(d.Patch, "+two") {
				t.Fatalf("diff: %v %+v", err, d)
			}
			restore(t, m, repo, "t1", base.Commit)
			if got := readFile(t, repo, "a.txt"); got != "one\n" {
				t.Fatalf("restore left a.txt = %q", got)
			}
			wt := filepath.Join(t.TempDir(), "wt")
			if _, err := m.AddWorktree(ctx, repo, wt, run1.Commit, "nexus-test"); err != nil {
				t.Fatalf("worktree: %v", err)
			}
			if _, err := m.WorktreeDirty(ctx, wt); err != nil { // git status in it
				t.Fatalf("worktree status: %v", err)
			}
			// The worktree dialog's operations: a path with a filter or a
			// custom merge driver is refused; the rest must work.
			if _, err := m.WorktreeDiff(ctx, repo, wt); err != nil {
				t.Fatalf("worktree diff: %v", err)
			}
			var pe *ProgramAttrError
			_, cerr := m.CommitWorktree(ctx, wt, "work")
			if cerr != nil && !errors.As(cerr, &pe) {
				t.Fatalf("commit: %v", cerr)
			}
			_, err := m.MergeWorktree(ctx, repo, wt)
			switch {
			case cerr != nil && (err == nil || !strings.Contains(err.Error(), "commit them first")):
				t.Fatalf("merge of the work a commit refused = %v, want it refused", err)
			case cerr == nil && err != nil && !errors.As(err, &pe):
				t.Fatalf("merge: %v", err)
			}
			if _, err := os.Stat(marker); err == nil {
				t.Fatal("git ran a program the repository's configuration named")
			}
		})
	}
}

// A filter defined after the first capture is disabled too: what was read
// of the configuration is kept only while its files are unchanged.
func TestGitFilterAddedLaterIsDisabled(t *testing.T) {
	repo := newRepo(t)
	writeFile(t, repo, "a.txt", "one\n")
	m := newManager(t, Options{})
	capture(t, m, repo, "t1", "base")
	marker := filepath.Join(t.TempDir(), "PWNED")
	writeFile(t, repo, ".gitattributes", "* filter=late\n")
	gitT(t, repo, "config", "filter.late.clean", "touch "+marker+"; cat")
	writeFile(t, repo, "a.txt", "two\n")
	capture(t, m, repo, "t1", "run1")
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("a filter configured after the first capture ran")
	}
}
