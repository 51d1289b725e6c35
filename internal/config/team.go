package config

import (
	"net/url"
	"path/filepath"
	"strings"
	"time"
)

// Team is the [team] table: the hub a host keeps its journal on, instead
// of the bbolt journal in its state dir.
//
//	[team]
//	url = "nats://hub.example:4222"      # several, comma-separated, for a cluster
//	credentials = "/home/me/.config/nexus/host.creds"
//	ca = "/home/me/.config/nexus/hub-ca.pem"   # optional: a hub certificate of its own
//	project = "acme/web"                 # the journal's name on the hub
//	lease = "15s"                        # optional: how long a dead host keeps the project
type Team struct {
	URL, Credentials, CA, Project string
	// Lease is the writer lease's time to live; 0 means the journal's
	// default.
	Lease time.Duration
	// Replicas is how many hubs keep the journal: 1, or 3 on a cluster;
	// 0 means 1.
	Replicas int
}

// team checks the [team] table.
func (p *parser) team(v any, cfg *Config) error {
	at := []string{"team"}
	tbl, ok := v.(map[string]any)
	if !ok {
		return p.errf(at, "team is %s; write it as a table: [team]", typeName(v))
	}
	t := &Team{}
	for _, k := range p.keys(tbl, at) {
		key := []string{"team", k}
		var err error
		switch k {
		case "url":
			if t.URL, err = p.str(tbl[k], key, nil); err == nil {
				for _, u := range strings.Split(t.URL, ",") {
					pu, perr := url.Parse(strings.TrimSpace(u))
					if perr != nil || (pu.Scheme != "nats" && pu.Scheme != "tls") || pu.Host == "" {
						err = p.errf(key, "%s %q is not a hub URL like nats://host:4222 (several comma-separated)", keyString(key), u)
						break
					}
				}
			}
		case "credentials", "ca":
			var s string
			if s, err = p.str(tbl[k], key, nil); err == nil && !filepath.IsAbs(s) {
				err = p.errf(key, "%s %q is not an absolute path; name the file the hub wrote (host.creds) by its full path", keyString(key), s)
			}
			if k == "ca" {
				t.CA = s
			} else {
				t.Credentials = s
			}
		case "project":
			if t.Project, err = p.str(tbl[k], key, nil); err == nil && strings.TrimSpace(t.Project) == "" {
				err = p.errf(key, "%s is empty; name the project every host of the team uses", keyString(key))
			}
		case "lease":
			var s string
			if s, err = p.str(tbl[k], key, nil); err == nil {
				d, perr := time.ParseDuration(s)
				if perr != nil || d < time.Second || d > time.Hour {
					err = p.errf(key, "%s %q is not a duration from 1s to 1h (like \"15s\")", keyString(key), s)
				}
				t.Lease = d
			}
		case "replicas":
			n, ok := tbl[k].(int64)
			if !ok || (n != 1 && n != 3) {
				err = p.errf(key, "%s must be 1 or 3 (a cluster of three hubs)", keyString(key))
			}
			t.Replicas = int(n)
		default:
			err = p.errf(key, "unknown key %s; [team] has url, credentials, ca, project, lease and replicas", keyString(key))
		}
		if err != nil {
			return err
		}
	}
	if t.URL == "" || t.Project == "" {
		return p.errf(at, "[team] needs url and project (and credentials for a hub with users)")
	}
	cfg.Team = t
	return nil
}
