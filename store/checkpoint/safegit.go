package checkpoint

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// Every git process this package starts runs on a repository an agent
// may have written to (a command it was allowed to run can edit
// .git/config, a .gitattributes or ~/.gitconfig), so none may run what a
// configuration names. These settings come first on every command line;
// command-line settings win over every configuration file, included ones
// too. See doc.go, "Git never runs what a repository names".
var neutralConfig = []string{
	"-c", "core.fsmonitor=false", // a query hook run by ls-files, update-index, status
	"-c", "core.hooksPath=/dev/null", // post-index-change, post-checkout (worktree add), ...
	"-c", "core.sshCommand=false", // transport: never used, never run
	"-c", "core.askPass=",
	"-c", "credential.helper=", // an empty value clears the helper list
	"-c", "protocol.allow=never", // no transport at all, ext:: included
	"-c", "diff.external=",
	"-c", "core.pager=cat",
	"-c", "uploadpack.packObjectsHook=",
	"-c", "core.alternateRefsCommand=",
}

// neutralEnv drops the system-wide configuration and attributes.
var neutralEnv = []string{"GIT_CONFIG_NOSYSTEM=1", "GIT_ATTR_NOSYSTEM=1"}

// filterCommands are the git commands that may run a filter driver
// (clean when reading the work tree, smudge when writing it).
var filterCommands = map[string]bool{
	"update-index": true, "checkout-index": true, "ls-files": true, "status": true,
	"worktree": true, "read-tree": true, "hash-object": true, "add": true, "checkout": true,
	"commit": true, "merge": true, "diff": true,
	// write-tree starts a process filter too (seen with a .gitattributes
	// just added to the index), so the capture's fallback to it needs
	// the settings as well.
	"write-tree": true,
}

// filterOff returns the settings that disable every filter driver the
// configuration of c's repository defines (filter.<name>.clean, .smudge
// and .process emptied, .required false): filter names are free-form, so
// they are listed first, includes and the global file followed. A
// command that cannot run filters gets none. The list is kept while
// every configuration file git read for it, and the repository's own
// config file, are unchanged (same size, time and inode), so a steady
// workspace pays one stat per file, not a git process.
func (m *Manager) filterOff(ctx context.Context, c cmd) ([]string, error) {
	if !filterCommands[firstWord(c.args)] {
		return nil, nil
	}
	key := c.dir
	for _, env := range c.env {
		if strings.HasPrefix(env, "GIT_DIR=") || strings.HasPrefix(env, "GIT_WORK_TREE=") {
			key += "\x00" + env
		}
	}
	// One reading at a time: the commands of one capture run side by
	// side, and the second finds what the first read.
	m.filterMu.Lock()
	defer m.filterMu.Unlock()
	e := m.filters[key]
	if e != nil && e.sig == signature(e.files) {
		return e.args, nil
	}

	x := exec.CommandContext(ctx, m.opts.Git, append(append([]string(nil), neutralConfig...),
		"config", "--list", "--show-origin", "--null")...)
	x.Dir = c.dir
	x.Env = append(append(append([]string(nil), baseEnv()...), neutralEnv...), c.env...)
	out, err := x.Output()
	if errors.Is(err, exec.ErrNotFound) || errors.Is(err, os.ErrNotExist) || errors.Is(err, os.ErrPermission) {
		return nil, errors.Join(ErrNoGit, err)
	}
	if err != nil {
		return nil, &GitError{Op: c.op, Args: []string{"config", "--list", "--show-origin"}, Err: err}
	}
	e = &filterSet{}
	files := map[string]bool{}
	for _, env := range c.env {
		if dir, ok := strings.CutPrefix(env, "GIT_DIR="); ok {
			files[filepath.Join(dir, "config")] = true
		}
	}
	for _, f := range globalConfigFiles() {
		files[f] = true
	}
	seen := map[string]bool{}
	// Records alternate: "file:PATH" (or "command line:"), then
	// "key\nvalue".
	recs := bytes.Split(out, []byte{0})
	for i := 0; i+1 < len(recs); i += 2 {
		if f, ok := strings.CutPrefix(string(recs[i]), "file:"); ok {
			files[f] = true
		}
		k, _, _ := strings.Cut(string(recs[i+1]), "\n")
		name, ok := strings.CutPrefix(strings.ToLower(k), "filter.")
		dot := strings.LastIndexByte(name, '.')
		if !ok || dot <= 0 || seen[name[:dot]] {
			continue
		}
		seen[name[:dot]] = true
		// The subsection keeps its case in the key git printed.
		orig := k[len("filter.") : len("filter.")+dot]
		for _, v := range []string{"clean=", "smudge=", "process=", "required=false"} {
			e.args = append(e.args, "-c", "filter."+orig+"."+v)
		}
	}
	e.files = slices.Sorted(maps.Keys(files))
	e.sig = signature(e.files)
	if m.filters == nil {
		m.filters = map[string]*filterSet{}
	}
	m.filters[key] = e
	return e.args, nil
}

// filterSet is the filter settings of one repository, with the files
// they were read from and their signature then.
type filterSet struct {
	args  []string
	files []string
	sig   string
}

// signature identifies the content of files by size, time and inode; a
// missing file counts too, so one that appears changes it.
func signature(files []string) string {
	var b strings.Builder
	for _, f := range files {
		st, err := os.Stat(f)
		if err != nil {
			b.WriteString("-;")
			continue
		}
		sys, _ := st.Sys().(*syscall.Stat_t)
		var ino uint64
		if sys != nil {
			ino = sys.Ino
		}
		fmt.Fprintf(&b, "%d.%d.%d;", st.Size(), st.ModTime().UnixNano(), ino)
	}
	return b.String()
}

// globalConfigFiles are the user's configuration files git would read,
// whether they exist yet or not.
func globalConfigFiles() []string {
	if f := os.Getenv("GIT_CONFIG_GLOBAL"); f != "" {
		return []string{f}
	}
	var out []string
	home, _ := os.UserHomeDir()
	if home != "" {
		out = append(out, filepath.Join(home, ".gitconfig"))
	}
	if x := os.Getenv("XDG_CONFIG_HOME"); x != "" {
		out = append(out, filepath.Join(x, "git", "config"))
	} else if home != "" {
		out = append(out, filepath.Join(home, ".config", "git", "config"))
	}
	return out
}
