package natsjournal

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/nats-io/nats.go"
)

// Credentials are one user of a hub: a name and a password, kept in a
// file of one line "name:password" that only its owner may read (0600).
// A hub makes three on its first start, in its dir: host.creds for the
// hosts (append to journals, create streams), sender.creds for people
// who read every thread and send commands and keys but write no journal
// (a teammate's laptop), and viewer.creds for people who may read every
// thread and send nothing (see ServerUser).
type Credentials struct {
	User, Password string
}

// The users a hub makes.
const (
	HostUser   = "host"
	SenderUser = "sender"
	ViewerUser = "viewer"
)

// ReadCredentials reads a credentials file, refusing one that others may
// read.
func ReadCredentials(path string) (Credentials, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return Credentials{}, fmt.Errorf("natsjournal: read credentials: %w; pass the file the hub wrote (host.creds or viewer.creds in its dir)", err)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return Credentials{}, fmt.Errorf("natsjournal: credentials file %s is readable by others (mode %v); chmod 600 it", path, fi.Mode().Perm())
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return Credentials{}, fmt.Errorf("natsjournal: read credentials: %w", err)
	}
	user, pass, ok := strings.Cut(strings.TrimSpace(string(b)), ":")
	if !ok || user == "" || pass == "" || strings.ContainsAny(user+pass, " \t\r\n") {
		return Credentials{}, fmt.Errorf("natsjournal: credentials file %s is not one line \"user:password\"; take the file the hub wrote", path)
	}
	return Credentials{User: user, Password: pass}, nil
}

// EnsureCredentials returns the credentials of user in dir/<user>.creds,
// making the file with a random 256-bit password if it does not exist.
func EnsureCredentials(dir, user string) (Credentials, string, error) {
	path := filepath.Join(dir, user+".creds")
	c, err := ReadCredentials(path)
	if err == nil {
		return c, path, nil
	}
	if _, statErr := os.Stat(path); !errors.Is(statErr, fs.ErrNotExist) {
		return Credentials{}, "", err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return Credentials{}, "", fmt.Errorf("natsjournal: create %s: %w", dir, err)
	}
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return Credentials{}, "", err
	}
	c = Credentials{User: user, Password: hex.EncodeToString(b[:])}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return Credentials{}, "", fmt.Errorf("natsjournal: write credentials: %w", err)
	}
	_, err = fmt.Fprintf(f, "%s:%s\n", c.User, c.Password)
	if err2 := f.Sync(); err == nil {
		err = err2
	}
	if err2 := f.Close(); err == nil {
		err = err2
	}
	if err != nil {
		return Credentials{}, "", fmt.Errorf("natsjournal: write credentials: %w", err)
	}
	return c, path, nil
}

// ConnectOptions are how a host or a viewer reaches a hub.
type ConnectOptions struct {
	// Credentials is the file the hub wrote (host.creds or viewer.creds);
	// empty connects without a user (a server with no users).
	Credentials string
	// CA is a PEM file of the certificate authority that signed the hub's
	// certificate, for a hub on TLS with a certificate of its own.
	CA string
	// Name names the connection in the server's monitoring.
	Name string
}

// Connect dials a hub. It does not give up when the hub is down for a
// while: the connection reconnects without end and buffers nothing
// (a journal's appends fail at once while it is down).
func Connect(url string, opts ConnectOptions) (*nats.Conn, error) {
	// The client library prints asynchronous errors (a permissions
	// violation) on stderr unless told otherwise, which would draw over
	// a full-screen UI; they come back as the failed call's error anyway.
	o := []nats.Option{nats.MaxReconnects(-1), nats.ReconnectBufSize(-1),
		nats.ErrorHandler(func(*nats.Conn, *nats.Subscription, error) {})}
	if opts.Name != "" {
		o = append(o, nats.Name(opts.Name))
	}
	if opts.Credentials != "" {
		c, err := ReadCredentials(opts.Credentials)
		if err != nil {
			return nil, err
		}
		o = append(o, nats.UserInfo(c.User, c.Password))
	}
	if opts.CA != "" {
		o = append(o, nats.RootCAs(opts.CA))
	}
	nc, err := nats.Connect(url, o...)
	if err != nil {
		return nil, fmt.Errorf("natsjournal: connect to the hub at %s: %w; is `nexus hub` running there, and are the credentials its own?", url, err)
	}
	return nc, nil
}
