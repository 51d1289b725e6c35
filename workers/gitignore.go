package workers

import (
	"path"
	"regexp"
	"strings"
)

// ignorePattern is one compiled line of a .gitignore file.
type ignorePattern struct {
	re      *regexp.Regexp // matched against the path relative to the file's directory
	negate  bool
	dirOnly bool
}

// ignoreFile holds the patterns of one directory's ignore files, in order.
type ignoreFile struct {
	pats []ignorePattern
}

// parseIgnore compiles the lines of a .gitignore file. Lines it cannot
// compile are skipped, as git skips lines it does not understand.
func parseIgnore(data string) *ignoreFile {
	f := &ignoreFile{}
	for _, line := range strings.Split(data, "\n") {
		if p, ok := compileIgnoreLine(line); ok {
			f.pats = append(f.pats, p)
		}
	}
	return f
}

// match reports whether any pattern matches rel (slash-separated,
// relative to the file's directory) and, if so, whether the last matching
// pattern ignores it.
func (f *ignoreFile) match(rel string, isDir bool) (matched, ignored bool) {
	for i := len(f.pats) - 1; i >= 0; i-- {
		p := f.pats[i]
		if p.dirOnly && !isDir {
			continue
		}
		if p.re.MatchString(rel) {
			return true, !p.negate
		}
	}
	return false, false
}

func compileIgnoreLine(line string) (ignorePattern, bool) {
	line = strings.TrimSuffix(line, "\r")
	line = trimUnescapedSpaces(line)
	if line == "" || line[0] == '#' {
		return ignorePattern{}, false
	}
	var p ignorePattern
	switch {
	case line[0] == '!':
		p.negate = true
		line = line[1:]
	case strings.HasPrefix(line, `\!`), strings.HasPrefix(line, `\#`):
		line = line[1:]
	}
	if strings.HasSuffix(line, "/") {
		p.dirOnly = true
		line = strings.TrimRight(line, "/")
	}
	if line == "" {
		return ignorePattern{}, false
	}
	// A slash at the start or in the middle anchors the pattern to the
	// directory of the .gitignore; otherwise it matches a name at any depth.
	anchored := strings.Contains(line, "/")
	line = strings.TrimPrefix(line, "/")
	expr := globRegexp(line)
	if !anchored {
		expr = "(?:.*/)?" + expr
	}
	re, err := regexp.Compile("^" + expr + "$")
	if err != nil {
		return ignorePattern{}, false
	}
	p.re = re
	return p, true
}

// trimUnescapedSpaces drops trailing spaces unless the last one is
// escaped with a backslash, as git does.
func trimUnescapedSpaces(s string) string {
	for strings.HasSuffix(s, " ") && !strings.HasSuffix(s, `\ `) {
		s = s[:len(s)-1]
	}
	return s
}

// globRegexp translates a gitignore glob into a regular expression:
// `*` and `?` stop at slashes, `**` spans directories at the start, end
// or between slashes, `[...]` is a character class, `\x` is x.
func globRegexp(g string) string {
	var b strings.Builder
	for i := 0; i < len(g); {
		atBoundary := i == 0 || g[i-1] == '/'
		switch c := g[i]; {
		case atBoundary && strings.HasPrefix(g[i:], "**/"):
			b.WriteString("(?:.*/)?")
			i += 3
		case atBoundary && g[i:] == "**":
			b.WriteString(".*")
			i += 2
		case c == '*':
			b.WriteString("[^/]*")
			i++
		case c == '?':
			b.WriteString("[^/]")
			i++
		case c == '[':
			class, n := globClass(g[i:])
			if n == 0 {
				b.WriteString(`\[`)
				i++
			} else {
				b.WriteString(class)
				i += n
			}
		case c == '\\' && i+1 < len(g):
			b.WriteString(regexp.QuoteMeta(g[i+1 : i+2]))
			i += 2
		default:
			b.WriteString(regexp.QuoteMeta(g[i : i+1]))
			i++
		}
	}
	return b.String()
}

// globClass translates the bracket expression at the start of g and
// returns it with the number of bytes it used, or 0 when it is not closed.
func globClass(g string) (string, int) {
	var b strings.Builder
	b.WriteByte('[')
	i := 1
	if i < len(g) && (g[i] == '!' || g[i] == '^') {
		b.WriteByte('^')
		i++
	}
	first := true
	for ; i < len(g); i++ {
		c := g[i]
		if c == ']' && !first {
			b.WriteByte(']')
			return b.String(), i + 1
		}
		first = false
		switch c {
		case '\\', '[', ']', '^':
			b.WriteByte('\\')
		}
		b.WriteByte(c)
	}
	return "", 0
}

// ignorer answers whether a workspace path is ignored, from the ignore
// files loaded so far, keyed by their directory ("." for the root).
type ignorer struct {
	files map[string]*ignoreFile
}

func newIgnorer() *ignorer { return &ignorer{files: map[string]*ignoreFile{}} }

// add registers the ignore patterns of dir; later calls for the same
// directory append (so .gitignore can follow .git/info/exclude and win).
func (ig *ignorer) add(dir, data string) {
	f := parseIgnore(data)
	if old := ig.files[dir]; old != nil {
		old.pats = append(old.pats, f.pats...)
		return
	}
	ig.files[dir] = f
}

// ignored applies the ignore files of rel's ancestors, the deepest first:
// the first that has a matching pattern decides, by its last match.
func (ig *ignorer) ignored(rel string, isDir bool) bool {
	if rel == "." || rel == "" {
		return false
	}
	dir := path.Dir(rel)
	for {
		if f := ig.files[dir]; f != nil {
			sub := rel
			if dir != "." {
				sub = strings.TrimPrefix(rel, dir+"/")
			}
			if m, ign := f.match(sub, isDir); m {
				return ign
			}
		}
		if dir == "." {
			return false
		}
		dir = path.Dir(dir)
	}
}
