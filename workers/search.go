package workers

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"regexp"
	"strings"
)

// Search limits: matches reported, and the length of a matching line.
const (
	maxSearchMatches = 1000
	maxSearchLine    = 300
)

var errSearchFull = errors.New("search match limit reached")

// search walks the workspace (or the directory or file named by path)
// and reports each line matching the Go regexp pattern as
// "path:line:text". It skips .git directories, files ignored by the
// .gitignore files on the way (and .git/info/exclude), binary files
// (a NUL byte in the first 8 KiB) and files over the read limit.
func (s *server) search(ctx context.Context, a Args, r *Result, _ emitFunc) error {
	if a.Pattern == "" {
		return errors.New("search needs a pattern (a Go regular expression)")
	}
	re, err := regexp.Compile(a.Pattern)
	if err != nil {
		return fmt.Errorf("invalid search pattern: %v", err)
	}
	rel, err := s.ws.resolve(TargetOf(ActionSearch, a))
	if err != nil {
		return err
	}
	start := filepath.ToSlash(rel)
	fsys := s.ws.fsys.FS()
	ig := newIgnorer()
	loadIgnore := func(dir string) {
		if dir == "." {
			if data, err := fs.ReadFile(fsys, ".git/info/exclude"); err == nil {
				ig.add(".", string(data))
			}
		}
		if data, err := fs.ReadFile(fsys, path.Join(dir, ".gitignore")); err == nil {
			ig.add(dir, string(data))
		}
	}
	// The ignore files of the start's ancestors apply too; the start
	// itself is searched even if ignored, because it was asked for.
	if start != "." {
		for _, dir := range ancestors(start) {
			loadIgnore(dir)
		}
	}
	var out strings.Builder
	matches := 0
	walkErr := fs.WalkDir(fsys, start, func(p string, d fs.DirEntry, err error) error {
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		if err != nil {
			return nil // unreadable entries are skipped, not fatal
		}
		if d.IsDir() {
			if p != start && (d.Name() == ".git" || ig.ignored(p, true) || s.ws.denied(filepath.Join(s.ws.root, p)) != "") {
				return fs.SkipDir
			}
			loadIgnore(p)
			return nil
		}
		if !d.Type().IsRegular() || (p != start && ig.ignored(p, false)) {
			return nil
		}
		info, err := d.Info()
		if err != nil || info.Size() > s.cfg.MaxRead {
			return nil
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return nil
		}
		r.Metrics.Bytes += int64(len(data))
		if bytes.IndexByte(data[:min(len(data), 8<<10)], 0) >= 0 {
			return nil
		}
		return searchLines(re, p, data, &out, &matches)
	})
	r.Output = strings.TrimSuffix(out.String(), "\n")
	switch {
	case errors.Is(walkErr, errSearchFull):
		r.Truncated = true
		r.Output += fmt.Sprintf("\n[search stopped after %d matches; narrow the pattern or the path]", maxSearchMatches)
	case walkErr != nil:
		return walkErr
	case matches == 0:
		r.Output = "no matches"
	}
	return nil
}

func searchLines(re *regexp.Regexp, name string, data []byte, out *strings.Builder, matches *int) error {
	for n := 1; len(data) > 0; n++ {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		if !re.Match(line) {
			continue
		}
		if *matches >= maxSearchMatches {
			return errSearchFull
		}
		*matches++
		text := strings.ToValidUTF8(string(bytes.TrimRight(line, "\r")), "\uFFFD")
		if len(text) > maxSearchLine {
			text = strings.ToValidUTF8(text[:maxSearchLine], "") + "…"
		}
		fmt.Fprintf(out, "%s:%d:%s\n", name, n, text)
	}
	return nil
}

// ancestors lists the directories above p, from the root down: "." then
// "a", "a/b" for p = "a/b/c".
func ancestors(p string) []string {
	dirs := []string{"."}
	parts := strings.Split(p, "/")
	for i := 1; i < len(parts); i++ {
		dirs = append(dirs, strings.Join(parts[:i], "/"))
	}
	return dirs
}
