package config

import (
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/BurntSushi/toml"
)

// nameRE is what a profile name may be: it becomes a provider id in the
// journal and the NAME of NEXUS_<NAME>_COMMAND.
var nameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,63}$`)

// parser checks one file. Keys are visited in file order (order), so the
// error reported is the first one in the file, whatever Go's map order.
type parser struct {
	path  string
	text  string
	order map[string]int
}

// Parse checks data as the config file at path (the path only names the
// file in errors). See Load for readyMade.
func Parse(path string, data []byte, readyMade map[string]string) (*Config, error) {
	if len(data) > MaxBytes {
		return nil, &Error{File: path, Msg: fmt.Sprintf("is over %d bytes; a config file is a few lines of TOML", MaxBytes)}
	}
	if !utf8.Valid(data) {
		return nil, &Error{File: path, Msg: "is not UTF-8 text; it must be TOML"}
	}
	p := &parser{path: path, text: string(data), order: map[string]int{}}
	var raw map[string]any
	md, err := toml.Decode(p.text, &raw)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, &Error{File: path, Line: syntaxLine(data, pe.Position), Msg: "not valid TOML: " + pe.Message}
		}
		return nil, &Error{File: path, Msg: "not valid TOML: " + err.Error()}
	}
	for i, k := range md.Keys() {
		if _, ok := p.order[k.String()]; !ok {
			p.order[k.String()] = i
		}
	}
	cfg := &Config{Path: path, Found: true}
	for _, k := range p.keys(raw, nil) {
		v := raw[k]
		switch k {
		case "theme":
			s, err := p.str(v, []string{k}, Themes)
			if err != nil {
				return nil, err
			}
			cfg.Theme = s
		case "host":
			if err := p.host(v, cfg); err != nil {
				return nil, err
			}
		case "ui":
			if err := p.ui(v, cfg); err != nil {
				return nil, err
			}
		case "commands":
			if err := p.commands(v, cfg); err != nil {
				return nil, err
			}
		case "worktree":
			if err := p.worktree(v, cfg); err != nil {
				return nil, err
			}
		case "notify":
			if err := p.notify(v, cfg); err != nil {
				return nil, err
			}
		case "team":
			if err := p.team(v, cfg); err != nil {
				return nil, err
			}
		case "profiles":
			tbl, ok := v.(map[string]any)
			if !ok {
				return nil, p.errf([]string{k}, "profiles is %s; write each profile as a table: [profiles.NAME]", typeName(v))
			}
			for _, name := range p.keys(tbl, []string{k}) {
				prof, err := p.profile(name, tbl[name], readyMade)
				if err != nil {
					return nil, err
				}
				cfg.Profiles = append(cfg.Profiles, prof)
			}
		default:
			return nil, p.errf([]string{k}, "unknown key %s; the file has theme = \"...\", [host], [ui], [commands], [worktree], [notify] and [team] tables and [profiles.NAME] tables", keyString([]string{k}))
		}
	}
	sort.Slice(cfg.Profiles, func(i, j int) bool { return cfg.Profiles[i].Name < cfg.Profiles[j].Name })
	return cfg, nil
}

// host checks the [host] table: mode and linger.
func (p *parser) host(v any, cfg *Config) error {
	at := []string{"host"}
	tbl, ok := v.(map[string]any)
	if !ok {
		return p.errf(at, "host is %s; write it as a table: [host]", typeName(v))
	}
	for _, k := range p.keys(tbl, at) {
		key := []string{"host", k}
		var err error
		switch k {
		case "mode":
			cfg.HostMode, err = p.str(tbl[k], key, HostModes)
		case "linger":
			var s string
			if s, err = p.str(tbl[k], key, nil); err == nil {
				if _, perr := ParseLinger(s); perr != nil {
					err = p.errf(key, "%s: %v", keyString(key), perr)
				}
				cfg.HostLinger = s
			}
		default:
			err = p.errf(key, "unknown key %s; [host] has mode and linger", keyString(key))
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// ui checks the [ui] table: scrollback.
func (p *parser) ui(v any, cfg *Config) error {
	at := []string{"ui"}
	tbl, ok := v.(map[string]any)
	if !ok {
		return p.errf(at, "ui is %s; write it as a table: [ui]", typeName(v))
	}
	for _, k := range p.keys(tbl, at) {
		key := []string{"ui", k}
		switch k {
		case "scrollback":
			n, ok := tbl[k].(int64)
			if !ok {
				return p.errf(key, "%s is %s; write a whole number of lines, such as 10000 (0 keeps none)", keyString(key), typeName(tbl[k]))
			}
			if n < 0 || n > MaxScrollback {
				return p.errf(key, "%s %d is not 0 (none) to %d lines", keyString(key), n, MaxScrollback)
			}
			lines := int(n)
			cfg.UIScrollback = &lines
		default:
			return p.errf(key, "unknown key %s; [ui] has scrollback", keyString(key))
		}
	}
	return nil
}

// worktree checks the [worktree] table: dir, where the threads' own git
// worktrees go.
func (p *parser) worktree(v any, cfg *Config) error {
	at := []string{"worktree"}
	tbl, ok := v.(map[string]any)
	if !ok {
		return p.errf(at, "worktree is %s; write it as a table: [worktree]", typeName(v))
	}
	for _, k := range p.keys(tbl, at) {
		key := []string{"worktree", k}
		if k != "dir" {
			return p.errf(key, "unknown key %s; [worktree] has dir", keyString(key))
		}
		s, err := p.str(tbl[k], key, nil)
		if err != nil {
			return err
		}
		if s != "~" && !strings.HasPrefix(s, "~/") && !filepath.IsAbs(s) {
			return p.errf(key, "%s %q is a relative path; write an absolute one or one starting with ~/ (each thread's worktree goes in DIR/<thread id>)",
				keyString(key), s)
		}
		cfg.WorktreeDir = s
	}
	return nil
}

// ParseLinger reads a linger setting: a Go duration ("10m", "90s"), "0"
// (stop as soon as nothing needs the host) or "never" (-1).
func ParseLinger(s string) (time.Duration, error) {
	switch s {
	case "never":
		return -1, nil
	case "0":
		return 0, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("linger %q is not a duration such as \"10m\", \"0\" or \"never\"", s)
	}
	return d, nil
}

// profile checks one [profiles.NAME] table.
func (p *parser) profile(name string, v any, readyMade map[string]string) (Profile, error) {
	at := []string{"profiles", name}
	if !nameRE.MatchString(name) {
		return Profile{}, p.errf(at, "profile name %q must be 1 to 64 lower-case letters, digits, - and _, starting with a letter or digit", name)
	}
	tbl, ok := v.(map[string]any)
	if !ok {
		return Profile{}, p.errf(at, "%s is %s; write it as a table: [profiles.%s]", keyString(at), typeName(v), name)
	}
	prof := Profile{Name: name, Line: p.line(at)}
	rmKind, rm := readyMade[name]
	if rm && rmKind == "builtin" {
		return Profile{}, p.errf(at, "%s is the built-in agent, which has nothing to configure; give your profile another name", keyString(at))
	}
	prof.ReadyMade = rm
	for _, k := range p.keys(tbl, at) {
		key := append(append([]string(nil), at...), k)
		var err error
		switch k {
		case "kind":
			prof.Kind, err = p.str(tbl[k], key, Kinds)
			if err == nil && rm && prof.Kind != rmKind {
				err = p.errf(key, "%s %q does not match the ready-made %s profile, which is %s; drop kind, or give a new profile another name",
					keyString(key), prof.Kind, name, rmKind)
			}
		case "command":
			prof.Command, err = p.command(tbl[k], key)
		case "env":
			prof.Env, err = p.env(tbl[k], key)
		case "model":
			prof.Model, err = p.str(tbl[k], key, nil)
		case "approval":
			prof.Approval, err = p.str(tbl[k], key, Approvals)
		case "budget_usd":
			prof.BudgetUSD, err = p.budgetUSD(tbl[k], key)
		case "max_tokens":
			prof.MaxTokens, err = p.maxTokens(tbl[k], key)
		default:
			err = p.errf(key, "unknown key %s; a profile has kind, command, env, model, approval, budget_usd and max_tokens", keyString(key))
		}
		if err != nil {
			return Profile{}, err
		}
	}
	if prof.Kind == "" {
		if !rm {
			return Profile{}, p.errf(at, "%s needs kind = one of %s (or use a ready-made profile's name to override it)",
				keyString(at), strings.Join(Kinds, ", "))
		}
		prof.Kind = rmKind
	}
	if prof.Model != "" && prof.Kind != "codex" && prof.Kind != "claude" {
		return Profile{}, p.errf(append(at, "model"), "%s: kind %s has no model setting; put the agent's own model flag in command instead",
			keyString(append(at, "model")), prof.Kind)
	}
	if prof.Command == nil && prof.Kind == "acp" && !rm {
		return Profile{}, p.errf(at, "%s of kind acp needs command = [\"program\", \"args\"...], the ACP agent to start",
			keyString(at))
	}
	return prof, nil
}

func (p *parser) command(v any, key []string) ([]string, error) {
	arr, ok := v.([]any)
	if !ok {
		return nil, p.errf(key, "%s is %s; write it as an array of words, such as [\"codex\", \"app-server\"]", keyString(key), typeName(v))
	}
	if len(arr) == 0 {
		return nil, p.errf(key, "%s is empty; its first word is the program to run", keyString(key))
	}
	out := make([]string, len(arr))
	for i, w := range arr {
		s, ok := w.(string)
		if !ok {
			return nil, p.errf(key, "%s word %d is %s; every word must be a string", keyString(key), i+1, typeName(w))
		}
		if strings.ContainsRune(s, 0) {
			return nil, p.errf(key, "%s word %d contains a NUL byte", keyString(key), i+1)
		}
		out[i] = s
	}
	if strings.TrimSpace(out[0]) == "" {
		return nil, p.errf(key, "%s starts with an empty word; the first word is the program to run", keyString(key))
	}
	return out, nil
}

func (p *parser) env(v any, key []string) (map[string]string, error) {
	tbl, ok := v.(map[string]any)
	if !ok {
		return nil, p.errf(key, "%s is %s; write it as a table of strings, such as env = { FOO = \"bar\" }", keyString(key), typeName(v))
	}
	out := make(map[string]string, len(tbl))
	for _, k := range p.keys(tbl, key) {
		vk := append(append([]string(nil), key...), k)
		if k == "" || strings.ContainsAny(k, "=\x00") {
			return nil, p.errf(vk, "%s is not a valid environment variable name", keyString(vk))
		}
		s, ok := tbl[k].(string)
		if !ok {
			return nil, p.errf(vk, "%s is %s; environment values are strings (quote numbers)", keyString(vk), typeName(tbl[k]))
		}
		if strings.ContainsRune(s, 0) {
			return nil, p.errf(vk, "%s contains a NUL byte", keyString(vk))
		}
		out[k] = s
	}
	return out, nil
}

// str checks a string value, one of allowed when allowed is not nil.
func (p *parser) str(v any, key []string, allowed []string) (string, error) {
	s, ok := v.(string)
	if !ok {
		if allowed != nil {
			return "", p.errf(key, "%s is %s; use one of %s", keyString(key), typeName(v), quoteAll(allowed))
		}
		return "", p.errf(key, "%s is %s; it must be a string", keyString(key), typeName(v))
	}
	if allowed == nil {
		if s == "" || strings.IndexFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f }) >= 0 {
			return "", p.errf(key, "%s %q must be a non-empty string without control characters", keyString(key), s)
		}
		return s, nil
	}
	for _, a := range allowed {
		if s == a {
			return s, nil
		}
	}
	return "", p.errf(key, "%s %q is not one of %s", keyString(key), s, strings.Join(allowed, ", "))
}

// keys are a table's keys in file order.
func (p *parser) keys(tbl map[string]any, at []string) []string {
	out := make([]string, 0, len(tbl))
	for k := range tbl {
		out = append(out, k)
	}
	pos := func(k string) int {
		if i, ok := p.order[toml.Key(append(append([]string(nil), at...), k)).String()]; ok {
			return i
		}
		return len(p.order)
	}
	sort.Slice(out, func(i, j int) bool {
		pi, pj := pos(out[i]), pos(out[j])
		if pi != pj {
			return pi < pj
		}
		return out[i] < out[j]
	})
	return out
}

func (p *parser) errf(key []string, format string, args ...any) error {
	return &Error{File: p.path, Line: p.line(key), Msg: fmt.Sprintf(format, args...)}
}

// syntaxLine is the line of a syntax error. BurntSushi/toml counts an
// error at a newline (an unclosed table header) on the next line; the
// byte offset says where it is.
func syntaxLine(data []byte, pos toml.Position) int {
	if pos.Start > 0 && pos.Start <= len(data) {
		return 1 + strings.Count(string(data[:pos.Start]), "\n")
	}
	return pos.Line
}

// probe is a value that refuses to decode: decoding the file into a
// struct that has one at key makes BurntSushi/toml report the key's
// position, which its MetaData does not export.
type probe struct{}

var errProbe = errors.New("probe")

func (probe) UnmarshalTOML(any) error { return errProbe }

// line is the line where key is defined, or 0 when it cannot be told.
func (p *parser) line(key []string) int {
	t := reflect.TypeOf(probe{})
	for i := len(key) - 1; i >= 0; i-- {
		// A struct tag cannot name a key with a comma (toml splits the
		// tag on it) or the key "-" (it means skip).
		if strings.Contains(key[i], ",") || key[i] == "-" || key[i] == "" {
			return 0
		}
		t = reflect.StructOf([]reflect.StructField{{Name: "F", Type: t,
			Tag: reflect.StructTag("toml:" + strconv.Quote(key[i]))}})
	}
	v := reflect.New(t)
	_, err := toml.Decode(p.text, v.Interface())
	var pe toml.ParseError
	if errors.As(err, &pe) {
		return pe.Position.Line
	}
	return 0
}

// keyString writes a key path as TOML would, quoting pieces that are not
// bare keys, so that a key with a newline still prints on one line.
func keyString(key []string) string {
	var b strings.Builder
	for i, k := range key {
		if i > 0 {
			b.WriteByte('.')
		}
		if k != "" && strings.IndexFunc(k, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-')
		}) < 0 {
			b.WriteString(k)
		} else {
			b.WriteString(strconv.Quote(k))
		}
	}
	return b.String()
}

func quoteAll(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = strconv.Quote(s)
	}
	return strings.Join(q, ", ")
}

// typeName says what TOML type a decoded value has, for errors.
func typeName(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case int64:
		return "an integer"
	case float64:
		return "a float"
	case bool:
		return "a boolean"
	case time.Time:
		return "a date-time"
	case []any:
		return "an array"
	case []map[string]any:
		return "an array of tables"
	case map[string]any:
		return "a table"
	}
	return "a date or time"
}
