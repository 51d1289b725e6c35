package natsjournal

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// testPKI writes a CA and, for each name, a certificate it signed for
// 127.0.0.1 (server and client use, as a route's two ends need), as PEM
// files in dir. It returns the CA's file and each name's cert and key.
func testPKI(t *testing.T, dir string, names ...string) (string, map[string][2]string) {
	t.Helper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	ca := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test hubs CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, ca, ca, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	caFile := filepath.Join(dir, "ca.pem")
	writePEM(t, caFile, "CERTIFICATE", caDER)
	out := map[string][2]string{}
	for i, name := range names {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		leaf := &x509.Certificate{SerialNumber: big.NewInt(int64(i + 2)), Subject: pkix.Name{CommonName: name},
			NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
			IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, DNSNames: []string{"localhost"},
			KeyUsage:    x509.KeyUsageDigitalSignature,
			ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth}}
		der, err := x509.CreateCertificate(rand.Reader, leaf, ca, &key.PublicKey, caKey)
		if err != nil {
			t.Fatal(err)
		}
		kb, err := x509.MarshalECPrivateKey(key)
		if err != nil {
			t.Fatal(err)
		}
		cert, keyFile := filepath.Join(dir, name+".pem"), filepath.Join(dir, name+"-key.pem")
		writePEM(t, cert, "CERTIFICATE", der)
		writePEM(t, keyFile, "EC PRIVATE KEY", kb)
		out[name] = [2]string{cert, keyFile}
	}
	return caFile, out
}

func writePEM(t *testing.T, path, kind string, der []byte) {
	t.Helper()
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
}

// Three hubs whose routes are on mutual TLS form a cluster: a journal at
// three replicas is on all three, takes appends and reads them back. A
// fourth hub whose certificate another CA signed, routing to them, is
// never let in: through it the journal cannot even be found.
func TestClusterRoutesOnTLS(t *testing.T) {
	dir := t.TempDir()
	caFile, certs := testPKI(t, dir, "hub0", "hub1", "hub2")
	_, stranger := testPKI(t, mkdir(t, filepath.Join(dir, "other")), "hub9")
	ports := freePorts(t, 4)
	route := func(i int) string { return fmt.Sprintf("nats-route://127.0.0.1:%d", ports[i]) }
	start := func(i int, cert [2]string, ca string) string {
		var routes []string
		for k := range 3 {
			if k != i {
				routes = append(routes, route(k))
			}
		}
		srv, url, err := StartServer(filepath.Join(dir, fmt.Sprintf("hub%d", i)), ServerOptions{Name: fmt.Sprintf("hub%d", i),
			Cluster: &ClusterOptions{Name: "tls", Port: ports[i], Routes: routes, TLSCert: cert[0], TLSKey: cert[1], CA: ca}})
		if err != nil {
			t.Fatalf("hub %d: %v", i, err)
		}
		t.Cleanup(func() { srv.Shutdown(); srv.WaitForShutdown() })
		return url
	}
	var urls []string
	for i := range 3 {
		urls = append(urls, start(i, certs[fmt.Sprintf("hub%d", i)], caFile))
	}
	nc := connect(t, strings.Join(urls, ","))
	var j *Journal
	var err error
	for try := 0; try < 200; try++ { // until the cluster elected its leaders
		if j, err = Open(context.Background(), nc, testProject, Options{Replicas: 3, Timeout: 2 * time.Second}); err == nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("no cluster formed over TLS routes: %v", err)
	}
	defer j.Close()
	mustAppend(t, j, gen(2, 0, 10)...)
	if got := len(readAll(t, j, 1)); uint64(got) != j.Last() || got == 0 {
		t.Fatalf("read %d events back from the cluster, last seq %d", got, j.Last())
	}
	if n, err := streamReplicas(j); err != nil || n != 3 {
		t.Fatalf("the stream has %d replicas (%v), want 3 on three hubs", n, err)
	}
	srv, url, err := StartServer(filepath.Join(dir, "hub9"), ServerOptions{Name: "hub9",
		Cluster: &ClusterOptions{Name: "tls", Port: ports[3], Routes: []string{route(0), route(1), route(2)},
			TLSCert: stranger["hub9"][0], TLSKey: stranger["hub9"][1], CA: filepath.Join(dir, "other", "ca.pem")}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Shutdown(); srv.WaitForShutdown() })
	snc := connect(t, url)
	for try := 0; try < 2; try++ {
		if sj, err := Open(context.Background(), snc, testProject, Options{ReadOnly: true, Timeout: 2 * time.Second}); err == nil {
			sj.Close()
			t.Fatal("a hub with a certificate of another CA joined the cluster: the journal is readable through it")
		}
	}
}

func mkdir(t *testing.T, dir string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	return dir
}

func freePorts(t *testing.T, n int) []int {
	t.Helper()
	var ports []int
	for range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ports = append(ports, ln.Addr().(*net.TCPAddr).Port)
		ln.Close()
	}
	return ports
}

// streamReplicas is how many servers hold the journal's stream now.
func streamReplicas(j *Journal) (int, error) {
	info, err := j.stream.Info(context.Background())
	if err != nil {
		return 0, err
	}
	if info.Cluster == nil {
		return 1, nil
	}
	return 1 + len(info.Cluster.Replicas), nil
}
