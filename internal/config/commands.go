package config

import "regexp"

// envEntryRE is a [commands] env entry: a variable name, or a name
// prefix followed by one "*". It is workers.CheckEnvPattern's rule (this
// package may not import workers; internal/host's tests check they
// agree).
var envEntryRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*\*?$`)

// commands checks the [commands] table: env.
func (p *parser) commands(v any, cfg *Config) error {
	at := []string{"commands"}
	tbl, ok := v.(map[string]any)
	if !ok {
		return p.errf(at, "commands is %s; write it as a table: [commands]", typeName(v))
	}
	for _, k := range p.keys(tbl, at) {
		key := []string{"commands", k}
		if k != "env" {
			return p.errf(key, "unknown key %s; [commands] has env", keyString(key))
		}
		arr, ok := tbl[k].([]any)
		if !ok {
			return p.errf(key, "%s is %s; write it as an array of variable names, such as [\"GOPATH\", \"NODE_*\"]", keyString(key), typeName(tbl[k]))
		}
		names := make([]string, 0, len(arr))
		for i, e := range arr {
			s, ok := e.(string)
			switch {
			case !ok:
				return p.errf(key, "%s entry %d is %s; every entry must be a string", keyString(key), i+1, typeName(e))
			case s == "*":
				return p.errf(key, "%s entry \"*\" would pass every variable, credentials included; name each variable (GOPATH) or a prefix (NODE_*)", keyString(key))
			case !envEntryRE.MatchString(s):
				return p.errf(key, "%s entry %q is not a variable name (GOPATH) or a name prefix with one trailing * (NODE_*)", keyString(key), s)
			}
			names = append(names, s)
		}
		cfg.CommandEnv = names
	}
	return nil
}
