package cli

import (
	"context"
	"flag"
	"fmt"
	"net"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/nexus-tui/nexus/store/natsjournal"
)

// cmdHub is `nexus hub`: team mode's server, an embedded NATS JetStream
// server in the foreground until SIGTERM or ctrl+c. Its dir keeps the
// streams (jetstream/) and the two credentials files it makes on its
// first start: host.creds for the hosts of the team, viewer.creds for
// people who may read every thread and send nothing. It listens on
// loopback unless told otherwise, and refuses any other address without
// TLS (the credentials would cross the network in clear). A cluster is
// three hubs started with the same --cluster name, names of their own,
// and the others' cluster addresses as --routes; they share the first
// one's credentials (copy its host.creds and viewer.creds into the
// others' dirs before they start). With --cluster-ca the routes are on
// mutual TLS (each hub's --tls-cert, checked against the CA both ways)
// and may cross machines; without it they are in clear text and listen
// on loopback only.
func (a *app) cmdHub(ctx context.Context, args []string) error {
	const usage = "nexus hub [--dir DIR] [--listen HOST:PORT] [--tls-cert FILE --tls-key FILE] [--cluster NAME --cluster-listen HOST:PORT --routes URL,URL --name NAME [--cluster-ca FILE]] [--log]"
	fs := flag.NewFlagSet("hub", flag.ContinueOnError)
	dir := fs.String("dir", "", "the hub's storage and credentials (default: STATE_DIR/hub)")
	listen := fs.String("listen", "127.0.0.1:4222", "address for hosts and viewers (port 0: any free one)")
	cert := fs.String("tls-cert", "", "PEM certificate: clients must connect over TLS (required off loopback)")
	key := fs.String("tls-key", "", "PEM key of --tls-cert")
	cluster := fs.String("cluster", "", "cluster name: run as one of three hubs that keep every stream")
	clusterListen := fs.String("cluster-listen", "127.0.0.1:6222", "address for the other hubs of the cluster")
	routes := fs.String("routes", "", "the other hubs' cluster addresses, nats-route://HOST:PORT,...")
	name := fs.String("name", "", "this hub's name (unique in a cluster; default: nexus-hub)")
	clusterCA := fs.String("cluster-ca", "", "PEM CA that signed every hub's --tls-cert: routes on mutual TLS, so the hubs may be on other machines")
	logs := fs.Bool("log", false, "the server's log on stderr")
	if _, err := parseArgs(fs, args, 0, 0, usage); err != nil {
		return err
	}
	host, port, err := splitListen("--listen", *listen)
	if err != nil {
		return err
	}
	if (*cert == "") != (*key == "") {
		return usageErr("--tls-cert and --tls-key go together; pass both or neither")
	}
	if *cert == "" && !loopback(host) {
		return usageErr("--listen %s is not a loopback address and the hub has no TLS: the credentials would cross the network in clear; pass --tls-cert and --tls-key", *listen)
	}
	if *dir == "" {
		sd, err := a.resolveStateDir()
		if err != nil {
			return err
		}
		*dir = filepath.Join(sd, "hub")
	}
	if abs, err := filepath.Abs(*dir); err == nil {
		*dir = abs // the credentials' paths it prints work from anywhere
	}
	opts := natsjournal.ServerOptions{Host: host, Port: port, Name: *name, Log: *logs, TLSCert: *cert, TLSKey: *key}
	if *cluster != "" {
		if *name == "" {
			return usageErr("--cluster needs --name: each hub of a cluster has a name of its own")
		}
		ch, cp, err := splitListen("--cluster-listen", *clusterListen)
		if err != nil {
			return err
		}
		if *clusterCA != "" && *cert == "" {
			return usageErr("--cluster-ca puts the routes on TLS with this hub's certificate: pass --tls-cert and --tls-key too")
		}
		if *clusterCA == "" && !loopback(ch) {
			return usageErr("--cluster-listen %s is not a loopback address and the routes have no TLS: pass --cluster-ca (with --tls-cert and --tls-key) for hubs on several machines", *clusterListen)
		}
		opts.Cluster = &natsjournal.ClusterOptions{Name: *cluster, Host: ch, Port: cp}
		if *clusterCA != "" {
			opts.Cluster.TLSCert, opts.Cluster.TLSKey, opts.Cluster.CA = *cert, *key, *clusterCA
		}
		for _, r := range strings.Split(*routes, ",") {
			if r = strings.TrimSpace(r); r != "" {
				opts.Cluster.Routes = append(opts.Cluster.Routes, r)
			}
		}
	}
	creds := map[string]string{}
	for _, u := range []string{natsjournal.HostUser, natsjournal.SenderUser, natsjournal.ViewerUser} {
		c, path, err := natsjournal.EnsureCredentials(*dir, u)
		if err != nil {
			return failErr("%v", err)
		}
		creds[u] = path
		opts.Users = append(opts.Users, natsjournal.ServerUser{Credentials: c,
			ReadOnly: u == natsjournal.ViewerUser, Sender: u == natsjournal.SenderUser})
	}
	srv, url, err := natsjournal.StartServer(filepath.Join(*dir, "jetstream"), opts)
	if err != nil {
		return failErr("%v", err)
	}
	defer func() {
		srv.Shutdown()
		srv.WaitForShutdown()
	}()
	fmt.Fprintf(a.stdout, "nexus hub: serving %s (streams in %s, every write fsynced)\n", url, filepath.Join(*dir, "jetstream"))
	fmt.Fprintf(a.stdout, "host credentials: %s\nsender credentials (read, send commands and keys; no hosting): %s\nviewer credentials (read only): %s\n",
		creds[natsjournal.HostUser], creds[natsjournal.SenderUser], creds[natsjournal.ViewerUser])
	fmt.Fprintf(a.stdout, "in each host's config file (the same project name on every box):\n[team]\nurl = %q\ncredentials = %q\nproject = \"PROJECT\"\n",
		url, creds[natsjournal.HostUser])
	<-ctx.Done()
	return nil
}

// splitListen parses HOST:PORT.
func splitListen(flagName, s string) (string, int, error) {
	h, p, err := net.SplitHostPort(s)
	if err != nil {
		return "", 0, usageErr("%s %q is not HOST:PORT (like 127.0.0.1:4222)", flagName, s)
	}
	port, err := strconv.Atoi(p)
	if err != nil || port < 0 || port > 65535 {
		return "", 0, usageErr("%s %q has no port number 0-65535", flagName, s)
	}
	if h == "" {
		return "", 0, usageErr("%s %q has no host; name the address to listen on (0.0.0.0 for every one)", flagName, s)
	}
	return h, port, nil
}

// loopback reports whether host is a loopback address or localhost.
func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
