package workers

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// defaultCommandEnv are the variables run_command passes on from the
// host's environment: what a shell and common tools need to find
// programs, the home and temporary directories and the user's locale.
// Anything else (API keys, tokens, DATABASE_URL, proxy settings that can
// carry a password) stays out unless the user names it in [commands] env
// (PoolConfig.CommandEnv). TERM and PWD are not passed on but set: TERM
// to dumb, PWD to the command's directory.
var defaultCommandEnv = []string{
	"PATH", "HOME", "USER", "LOGNAME", "SHELL",
	"LANG", "LANGUAGE", "LC_*", "TZ", "TMPDIR",
	"XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_RUNTIME_DIR",
	"SSL_CERT_FILE", "SSL_CERT_DIR",
}

// runtimeEnv are the Go runtime's variables. A worker process (a Go
// program) starts with them too, so a race or coverage build behaves as
// asked, but its commands do not get them unless they are allow-listed.
var runtimeEnv = []string{"GOGC", "GOMAXPROCS", "GOMEMLIMIT", "GODEBUG", "GOTRACEBACK", "GORACE", "GOCOVERDIR"}

// envPatternRE is an allow-list entry: a variable name, or a name prefix
// followed by one "*". internal/config checks the same rule.
var envPatternRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*\*?$`)

// CheckEnvPattern says what is wrong with an allow-list entry, or nil.
func CheckEnvPattern(p string) error {
	if p == "*" || !envPatternRE.MatchString(p) {
		return fmt.Errorf("command environment entry %q is not a variable name (GOPATH) or a name prefix with one trailing * (NODE_*)", p)
	}
	return nil
}

// envAllow is an allow-list of environment variable names.
type envAllow []string

// allows reports whether the list lets name through. A name listed
// exactly always passes: the user asked for it. A name that only
// matches a PREFIX* entry must also not look like a credential, so that
// NODE_* does not pass NODE_AUTH_TOKEN.
func (a envAllow) allows(name string) bool {
	if slices.Contains(a, name) {
		return true
	}
	for _, p := range a {
		if prefix, ok := strings.CutSuffix(p, "*"); ok && strings.HasPrefix(name, prefix) {
			return !credentialName(name)
		}
	}
	return false
}

// filter keeps the variables of env the list allows, in order.
func (a envAllow) filter(env []string) []string {
	out := make([]string, 0, len(a))
	for _, kv := range env {
		name, _, ok := strings.Cut(kv, "=")
		if ok && name != "" && a.allows(name) {
			out = append(out, kv)
		}
	}
	return out
}

// credentialName reports whether a variable's name suggests its value
// is a credential or holds one (a URL with a password in it). AUTHOR is
// not AUTH (GIT_* should pass GIT_AUTHOR_NAME), AUTHORIZATION is.
func credentialName(name string) bool {
	u := strings.ToUpper(name)
	if strings.Contains(u, "AUTHORIZ") {
		return true
	}
	u = strings.ReplaceAll(u, "AUTHOR", "")
	for _, w := range []string{"KEY", "TOKEN", "SECRET", "PASS", "CRED", "AUTH", "PRIVATE", "COOKIE", "SESSION", "DSN"} {
		if strings.Contains(u, w) {
			return true
		}
	}
	return strings.HasSuffix(u, "_URL") || strings.HasSuffix(u, "_URI")
}

// commandAllow is the allow-list of run_command: the defaults and the
// user's extra entries.
func commandAllow(extra []string) envAllow {
	return envAllow(append(slices.Clone(defaultCommandEnv), extra...))
}

// commandEnv is the environment of a command run in dir: the allowed
// variables of env, TERM=dumb (so output carries few escape sequences),
// PAGER and GIT_PAGER cat (a `git log` in a step must not start an
// interactive pager nobody can quit) and PWD=dir (what a shell would
// set; exec.Cmd sets it only when it builds the environment itself).
func commandEnv(env []string, allow envAllow, dir string) []string {
	out := allow.filter(env)
	out = slices.DeleteFunc(out, func(kv string) bool {
		for _, k := range []string{"TERM=", "PWD=", "PAGER=", "GIT_PAGER="} {
			if strings.HasPrefix(kv, k) {
				return true
			}
		}
		return false
	})
	return append(out, "TERM=dumb", "PAGER=cat", "GIT_PAGER=cat", "PWD="+dir)
}
