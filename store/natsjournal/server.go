package natsjournal

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// DefaultMaxPayload is the max_payload of a server StartServer starts:
// the largest commit it takes (NATS's own default is 1 MiB; a commit of
// a long tool output can pass that).
const DefaultMaxPayload = 8 << 20

// ServerOptions configure StartServer. The zero value is a private
// server on a random loopback port that logs nothing.
type ServerOptions struct {
	// Host is the address to listen on; empty means 127.0.0.1.
	Host string
	// Port is the port to listen on; 0 means a random free one.
	Port int
	// Name is the server's name; empty means "nexus-hub".
	Name string
	// MaxPayload is the largest message the server takes; 0 means
	// DefaultMaxPayload.
	MaxPayload int32
	// Log makes the server log to stderr.
	Log bool
	// StartTimeout bounds how long StartServer waits for the server to
	// take connections; 0 means 10 s.
	StartTimeout time.Duration
	// Users may connect, each with its password; none means anyone who
	// reaches the port may (only for a server on loopback).
	Users []ServerUser
	// TLSCert and TLSKey are PEM files: with them clients must connect
	// over TLS.
	TLSCert, TLSKey string
	// Cluster joins the server to a cluster of hubs; nil runs it alone.
	Cluster *ClusterOptions
}

// ServerUser is a user of the server. A read-only user (a viewer) reads
// every stream and bucket and can write nothing: see viewerPermissions.
// A sender reads as a viewer does and may also queue commands and type
// into terminals, but writes no journal, lease or snapshot: see
// senderPermissions. Neither can host a project.
type ServerUser struct {
	Credentials
	ReadOnly bool
	Sender   bool
}

// ClusterOptions join a server to a cluster: three servers, each with
// the others' cluster addresses as routes, keep each stream on all three
// (Options.Replicas 3), and go on while two of them are up.
type ClusterOptions struct {
	// Name is the cluster's name, the same on every server.
	Name string
	// Host and Port are where this server takes routes from the others.
	Host string
	Port int
	// Routes are the others' cluster URLs, nats-route://host:port.
	Routes []string
	// TLSCert, TLSKey and CA put the routes on mutual TLS: each hub
	// presents its certificate and takes routes only from hubs whose
	// certificate CA signed (and checks the address it dials against the
	// peer's certificate). Without them routes are in clear text.
	TLSCert, TLSKey, CA string
}

// StartServer runs an embedded nats-server with JetStream, its file
// storage in dir (created 0700 if missing), fsyncing every write
// (sync_interval "always"), so a journal on it acknowledges only durable
// commits. It returns the server and the URL to connect to. The caller
// stops it with Shutdown and WaitForShutdown; starting it again on the
// same dir recovers every stream.
func StartServer(dir string, opts ServerOptions) (*server.Server, string, error) {
	if dir == "" {
		return nil, "", errors.New("natsjournal: no storage dir for the server; pass the dir that keeps its streams")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, "", fmt.Errorf("natsjournal: create the server's storage dir: %w", err)
	}
	o := &server.Options{
		ServerName: opts.Name,
		Host:       opts.Host,
		Port:       opts.Port,
		JetStream:  true,
		StoreDir:   dir,
		// Every write is fsynced before the server acknowledges it; the
		// default (a sync every 2 minutes) would let a power loss take
		// acknowledged commits.
		SyncAlways: true,
		MaxPayload: opts.MaxPayload,
		NoLog:      !opts.Log,
		NoSigs:     true,
	}
	if o.ServerName == "" {
		o.ServerName = "nexus-hub"
	}
	if o.Host == "" {
		o.Host = "127.0.0.1"
	}
	if o.Port == 0 {
		o.Port = server.RANDOM_PORT
	}
	if o.MaxPayload == 0 {
		o.MaxPayload = DefaultMaxPayload
	}
	if err := configure(o, opts); err != nil {
		return nil, "", err
	}
	timeout := opts.StartTimeout
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	srv, err := server.NewServer(o)
	if err != nil {
		return nil, "", fmt.Errorf("natsjournal: configure the NATS server: %w", err)
	}
	if opts.Log {
		srv.ConfigureLogger()
	}
	srv.Start()
	stop := func() {
		srv.Shutdown()
		srv.WaitForShutdown()
	}
	if !srv.ReadyForConnections(timeout) {
		stop()
		return nil, "", fmt.Errorf("natsjournal: the NATS server did not take connections on %s:%d within %v; is the port free?", o.Host, o.Port, timeout)
	}
	if !srv.JetStreamEnabled() {
		stop()
		return nil, "", fmt.Errorf("natsjournal: the NATS server started without JetStream; check that %s is writable", dir)
	}
	return srv, srv.ClientURL(), nil
}
