package natsjournal

import (
	"crypto/tls"
	"fmt"
	"net/url"

	"github.com/nats-io/nats-server/v2/server"
)

// configure sets the server's users, TLS and cluster from opts.
func configure(o *server.Options, opts ServerOptions) error {
	for _, u := range opts.Users {
		su := &server.User{Username: u.User, Password: u.Password}
		switch {
		case u.ReadOnly:
			su.Permissions = viewerPermissions()
		case u.Sender:
			su.Permissions = senderPermissions()
		}
		o.Users = append(o.Users, su)
	}
	if opts.TLSCert != "" || opts.TLSKey != "" {
		tc, err := server.GenTLSConfig(&server.TLSConfigOpts{CertFile: opts.TLSCert, KeyFile: opts.TLSKey})
		if err != nil {
			return fmt.Errorf("natsjournal: TLS certificate %s and key %s: %w; pass a PEM certificate and its key", opts.TLSCert, opts.TLSKey, err)
		}
		o.TLSConfig, o.TLS = tc, true
	}
	if c := opts.Cluster; c != nil {
		if c.Name == "" || c.Port == 0 {
			return fmt.Errorf("natsjournal: a cluster needs a name and a cluster port")
		}
		o.Cluster.Name, o.Cluster.Host, o.Cluster.Port = c.Name, c.Host, c.Port
		if o.Cluster.Host == "" {
			o.Cluster.Host = "127.0.0.1"
		}
		if c.TLSCert != "" || c.TLSKey != "" || c.CA != "" {
			if c.TLSCert == "" || c.TLSKey == "" || c.CA == "" {
				return fmt.Errorf("natsjournal: routes on TLS need a certificate, its key and the CA that signed every hub's certificate")
			}
			tc, err := server.GenTLSConfig(&server.TLSConfigOpts{CertFile: c.TLSCert, KeyFile: c.TLSKey, CaFile: c.CA, Verify: true})
			if err != nil {
				return fmt.Errorf("natsjournal: route TLS (certificate %s, key %s, CA %s): %w; pass PEM files", c.TLSCert, c.TLSKey, c.CA, err)
			}
			// A hub is both ends of its routes: it checks the hub it
			// dials and the hub that dials it against the same CA.
			tc.ClientAuth, tc.RootCAs = tls.RequireAndVerifyClientCert, tc.ClientCAs
			o.Cluster.TLSConfig, o.Cluster.TLSTimeout = tc, 5
		}
		for _, r := range c.Routes {
			u, err := url.Parse(r)
			if err != nil || u.Host == "" {
				return fmt.Errorf("natsjournal: cluster route %q is not a URL like nats-route://host:port", r)
			}
			o.Routes = append(o.Routes, u)
		}
	}
	return nil
}

// viewerPermissions let a user read every journal and snapshot and write
// nothing: no publish on the journals' subjects (nexus.>), the object
// stores' ($O.>) or the KV buckets' ($KV.>), and none of the JetStream
// API calls that create, change or delete a stream or a message. Reading
// goes through consumers and message gets, which stay allowed.
func viewerPermissions() *server.Permissions {
	return &server.Permissions{Publish: &server.SubjectPermission{
		Allow: []string{">"},
		Deny:  append([]string{"nexus.>"}, storeDenied...),
	}}
}

// storeDenied are the subjects of everything a hub stores but a
// project's commands: the object stores (snapshots), the KV buckets
// (leases) and the JetStream API calls that create, change or delete a
// stream or a message.
var storeDenied = []string{"$O.>", "$KV.>",
	"$JS.API.STREAM.CREATE.>", "$JS.API.STREAM.UPDATE.>", "$JS.API.STREAM.DELETE.>",
	"$JS.API.STREAM.PURGE.>", "$JS.API.STREAM.MSG.DELETE.>", "$JS.API.STREAM.RESTORE.>"}

// senderPermissions are a viewer's plus what a teammate needs to steer
// agents from afar: a project's command queue (nexus.<p>.c; the owner
// decides each command, as it does a local one) and its terminals' keys
// and sizes (nexus.<p>.term.>). The journals' subjects (nexus.<p>.j.>),
// the owner's live text (nexus.<p>.live) and every store stay closed, so
// a sender can neither write history nor take a project's lease.
func senderPermissions() *server.Permissions {
	return &server.Permissions{Publish: &server.SubjectPermission{
		Allow: []string{">"},
		Deny:  append([]string{"nexus.*.j.>", "nexus.*" + liveSuffix}, storeDenied...),
	}}
}
