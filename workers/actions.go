package workers

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/nexus-tui/nexus/core"
	"github.com/zeebo/blake3"
)

// Actions a worker performs.
const (
	ActionReadFile   = "read_file"
	ActionWriteFile  = "write_file"
	ActionEditFile   = "edit_file"
	ActionListDir    = "list_dir"
	ActionSearch     = "search"
	ActionRunCommand = "run_command"
)

// Class is the side-effect class (docs/ARCHITECTURE.md, "Side effects")
// of an action, for the kernel's two-phase effects: reads are pure,
// writes idempotent (the same content again gives the same file, and a
// recorded BLAKE3 tells whether it already happened), edits reversible
// (the workspace checkpoint undoes them; redoing one on edited content
// fails), commands irreversible. It is "" for an unknown action.
func Class(action string) core.EffectClass {
	switch action {
	case ActionReadFile, ActionListDir, ActionSearch:
		return core.ClassPure
	case ActionWriteFile:
		return core.ClassIdempotent
	case ActionEditFile:
		return core.ClassReversible
	case ActionRunCommand:
		return core.ClassIrreversible
	}
	return ""
}

// emitFunc sends a checkpoint for the running step.
type emitFunc func(Artifacts)

func (s *server) readFile(_ context.Context, a Args, r *Result, _ emitFunc) error {
	rel, err := s.ws.resolve(a.Path)
	if err != nil {
		return err
	}
	data, err := s.readCapped(rel)
	if err != nil {
		return err
	}
	r.Metrics.Bytes = int64(len(data))
	if utf8.Valid(data) {
		r.Output = string(data)
	} else {
		r.Output, r.Encoding = base64.StdEncoding.EncodeToString(data), "base64"
	}
	return nil
}

// readCapped reads a regular file of at most MaxRead bytes. It checks the
// type before opening, so a FIFO cannot block the step in open(2).
func (s *server) readCapped(rel string) ([]byte, error) {
	if st, err := s.ws.fsys.Stat(rel); err != nil {
		return nil, fileErr(rel, err)
	} else if !st.IsDir() && !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file (%s)", display(rel), st.Mode().Type())
	}
	f, err := s.ws.fsys.Open(rel)
	if err != nil {
		return nil, fileErr(rel, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fileErr(rel, err)
	}
	if st.IsDir() {
		return nil, fmt.Errorf("%s is a directory (use list_dir)", display(rel))
	}
	if st.Size() > s.cfg.MaxRead {
		return nil, fmt.Errorf("%s is %d bytes, over the %d byte read limit (use search or run_command to look at part of it)",
			display(rel), st.Size(), s.cfg.MaxRead)
	}
	data, err := io.ReadAll(io.LimitReader(f, s.cfg.MaxRead+1))
	if err != nil {
		return nil, fileErr(rel, err)
	}
	if int64(len(data)) > s.cfg.MaxRead {
		return nil, fmt.Errorf("%s grew past the %d byte read limit while being read", display(rel), s.cfg.MaxRead)
	}
	return data, nil
}

func (s *server) writeFile(_ context.Context, a Args, r *Result, emit emitFunc) error {
	rel, err := s.ws.resolveWrite(a.Path)
	if err != nil {
		return err
	}
	if int64(len(a.Content)) > s.cfg.MaxRead {
		return fmt.Errorf("content of %d bytes is over the %d byte write limit", len(a.Content), s.cfg.MaxRead)
	}
	if err := s.writeAtomic(rel, []byte(a.Content), r, emit); err != nil {
		return err
	}
	r.Output = fmt.Sprintf("wrote %d bytes to %s", len(a.Content), display(rel))
	return nil
}

func (s *server) editFile(_ context.Context, a Args, r *Result, emit emitFunc) error {
	rel, err := s.ws.resolveWrite(a.Path)
	if err != nil {
		return err
	}
	if a.Old == "" {
		return errors.New("edit_file needs the exact text to replace in old")
	}
	data, err := s.readCapped(rel)
	if err != nil {
		return err
	}
	text := string(data)
	switch n := strings.Count(text, a.Old); {
	case n == 0:
		return fmt.Errorf("old text not found in %s; nothing was changed", display(rel))
	case n > 1:
		return fmt.Errorf("old text found %d times in %s (lines %s); include more surrounding text so it matches once; nothing was changed",
			n, display(rel), occurrenceLines(text, a.Old, 10))
	}
	line := 1 + strings.Count(text[:strings.Index(text, a.Old)], "\n")
	text = strings.Replace(text, a.Old, a.New, 1)
	if int64(len(text)) > s.cfg.MaxRead {
		return fmt.Errorf("the edited %s would be %d bytes, over the %d byte write limit", display(rel), len(text), s.cfg.MaxRead)
	}
	if err := s.writeAtomic(rel, []byte(text), r, emit); err != nil {
		return err
	}
	r.Output = fmt.Sprintf("replaced 1 occurrence in %s at line %d", display(rel), line)
	return nil
}

// occurrenceLines lists the line numbers of the first max occurrences.
func occurrenceLines(text, sub string, max int) string {
	var lines []string
	off := 0
	for len(lines) < max {
		i := strings.Index(text[off:], sub)
		if i < 0 {
			break
		}
		lines = append(lines, fmt.Sprint(1+strings.Count(text[:off+i], "\n")))
		off += i + len(sub)
	}
	return strings.Join(lines, ", ")
}

// writeAtomic replaces rel with data so that a crash leaves either the
// old or the new content: temp file in the same directory, fsync, rename,
// fsync of the directory. Missing parent directories are created. The
// checkpoint with the BLAKE3 is sent only once the rename is durable.
func (s *server) writeAtomic(rel string, data []byte, r *Result, emit emitFunc) error {
	dir, base := filepath.Dir(rel), filepath.Base(rel)
	if rel == "." {
		return errors.New("cannot write to the workspace directory itself")
	}
	if dir != "." {
		if err := s.ws.fsys.MkdirAll(dir, 0o755); err != nil {
			return fileErr(dir, err)
		}
	}
	perm := fs.FileMode(0o644)
	if st, err := s.ws.fsys.Stat(rel); err == nil {
		if st.IsDir() {
			return fmt.Errorf("%s is a directory", display(rel))
		}
		perm = st.Mode().Perm()
	}
	var rnd [6]byte
	rand.Read(rnd[:])
	tmp := filepath.Join(dir, "."+base+".nexus-tmp-"+hex.EncodeToString(rnd[:]))
	f, err := s.ws.fsys.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return fileErr(rel, err)
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = s.ws.fsys.Rename(tmp, rel)
	}
	if err != nil {
		s.ws.fsys.Remove(tmp)
		return fileErr(rel, err)
	}
	if d, err := s.ws.fsys.Open(dir); err == nil {
		err = d.Sync()
		d.Close()
		if err != nil {
			return fileErr(dir, err)
		}
	}
	sum := blake3.Sum256(data)
	r.Path, r.Blake3 = display(rel), hex.EncodeToString(sum[:])
	r.Metrics.Bytes = int64(len(data))
	emit(Artifacts{Path: r.Path, Blake3: r.Blake3})
	return nil
}

func (s *server) listDir(_ context.Context, a Args, r *Result, _ emitFunc) error {
	rel, err := s.ws.resolve(TargetOf(ActionListDir, a))
	if err != nil {
		return err
	}
	d, err := s.ws.fsys.Open(rel)
	if err != nil {
		return fileErr(rel, err)
	}
	defer d.Close()
	st, err := d.Stat()
	if err != nil {
		return fileErr(rel, err)
	}
	if !st.IsDir() {
		return fmt.Errorf("%s is not a directory (use read_file)", display(rel))
	}
	entries, err := d.ReadDir(-1)
	if err != nil {
		return fileErr(rel, err)
	}
	names := make([]string, len(entries))
	for i, e := range entries {
		names[i] = e.Name()
		if e.IsDir() {
			names[i] += "/"
		}
	}
	sort.Strings(names)
	r.Output = strings.Join(names, "\n")
	r.Metrics.Bytes = int64(len(r.Output))
	return nil
}

// fileErr turns an os error into a message naming the workspace path
// rather than the worker's absolute one.
func fileErr(rel string, err error) error {
	var pe *fs.PathError
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s does not exist", display(rel))
	case errors.Is(err, fs.ErrPermission):
		return fmt.Errorf("%s: permission denied", display(rel))
	case errors.As(err, &pe):
		if strings.Contains(pe.Err.Error(), "escapes") {
			return refusef("refused path %q: it escapes the workspace", display(rel))
		}
		return fmt.Errorf("%s: %s failed: %v", display(rel), pe.Op, pe.Err)
	}
	return fmt.Errorf("%s: %w", display(rel), err)
}
