package checkpoint

import (
	"strings"
	"testing"
)

// An untracked .env or private key in a user's repository never goes
// into its refs/nexus/... (which `git push --mirror` would publish), and
// a restore neither removes nor rewrites it; a tracked one is captured as
// usual; a shadow repository, under the state dir, keeps them.
func TestSecretsStayOutOfTheUsersRefs(t *testing.T) {
	m := newManager(t, Options{})
	repo := newRepo(t)
	writeFile(t, repo, "config/.env.local", "tracked=1\n")
	gitT(t, repo, "add", "-A")
	gitT(t, repo, "commit", "-q", "-m", "tracked env")
	run1 := capture(t, m, repo, "t1", "run1")
	for _, p := range []string{".env", "deploy/id_rsa", "tls/server.key", "notes.txt"} {
		writeFile(t, repo, p, "secret of "+p+"\n")
	}
	run2 := capture(t, m, repo, "t1", "run2")
	files := strings.Join(treeFiles(t, gitT(t, repo, "rev-parse", "--absolute-git-dir"), run2.Commit), " ")
	for _, secret := range []string{".env", "deploy/id_rsa", "tls/server.key"} {
		if strings.Contains(" "+files+" ", " "+secret+" ") {
			t.Errorf("%s went into the repository's refs: %s", secret, files)
		}
	}
	for _, kept := range []string{"notes.txt", "config/.env.local"} {
		if !strings.Contains(" "+files+" ", " "+kept+" ") {
			t.Errorf("%s is missing from the checkpoint: %s", kept, files)
		}
	}
	restore(t, m, repo, "t1", run1.Commit)
	if exists(repo, "notes.txt") || !exists(repo, ".env") || readFile(t, repo, "deploy/id_rsa") != "secret of deploy/id_rsa\n" {
		t.Fatalf("the restore removed a secret or kept notes.txt")
	}

	plain := t.TempDir()
	writeFile(t, plain, ".env", "k=v\n")
	cp := capture(t, m, plain, "t2", "run1")
	if got := strings.Join(treeFiles(t, m.shadowDir(canonicalT(t, plain)), cp.Commit), " "); !strings.Contains(got, ".env") {
		t.Errorf("the shadow repository left out .env: %s", got)
	}
}
