// This file makes a throwaway CA and the certificates a self-hosted
// cluster's operator hands out for mTLS, for tests: a server certificate for
// localhost and 127.0.0.1 and a client certificate. The temporalclient tests
// dial a TLS front with them; the production cluster of internal/prodstack
// serves its frontend with them.

package standalone

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// validity covers the longest test run (make test) with room to spare; a
// leaked key is worthless an hour later.
const validity = 2 * time.Hour

// Names the certificates carry, for assertions on the peer.
const (
	ServerName = "temporal.test"
	ClientName = "agentrun-worker"
)

// Certs are PEM files in a test's temporary directory, and the parsed CA and
// server certificate for a server in the test's own process.
type Certs struct {
	CAFile, ServerCertFile, ServerKeyFile, ClientCertFile, ClientKeyFile string
	CA                                                                   *x509.CertPool
	Server                                                               tls.Certificate
}

// Write makes Certs in t's temporary directory and fails t if it cannot.
func Write(t testing.TB) Certs {
	t.Helper()
	c, err := write(t.TempDir())
	if err != nil {
		t.Fatalf("testcerts: %v", err)
	}
	return c
}

func write(dir string) (Certs, error) {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return Certs{}, fmt.Errorf("CA key: %w", err)
	}
	now := time.Now()
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "agentrun test CA"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(validity),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return Certs{}, fmt.Errorf("CA certificate: %w", err)
	}
	caCert, err := x509.ParseCertificate(caDER)
	if err != nil {
		return Certs{}, fmt.Errorf("parse the CA certificate: %w", err)
	}
	leaf := func(serial int64, name string, usage x509.ExtKeyUsage) (certPEM, keyPEM []byte, err error) {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			return nil, nil, fmt.Errorf("key of %s: %w", name, err)
		}
		tmpl := &x509.Certificate{
			SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: name},
			NotBefore: now.Add(-time.Hour), NotAfter: now.Add(validity),
			KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{usage},
			DNSNames: []string{"localhost"}, IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
		}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, caCert, &key.PublicKey, caKey)
		if err != nil {
			return nil, nil, fmt.Errorf("certificate of %s: %w", name, err)
		}
		keyDER, err := x509.MarshalECPrivateKey(key)
		if err != nil {
			return nil, nil, fmt.Errorf("marshal the key of %s: %w", name, err)
		}
		return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
			pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), nil
	}
	c := Certs{CA: x509.NewCertPool()}
	c.CA.AddCert(caCert)
	files := map[string][]byte{"ca.pem": pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER})}
	serverCert, serverKey, err := leaf(2, ServerName, x509.ExtKeyUsageServerAuth)
	if err != nil {
		return Certs{}, err
	}
	files["server.pem"], files["server.key"] = serverCert, serverKey
	if c.Server, err = tls.X509KeyPair(serverCert, serverKey); err != nil {
		return Certs{}, fmt.Errorf("server key pair: %w", err)
	}
	clientCert, clientKey, err := leaf(3, ClientName, x509.ExtKeyUsageClientAuth)
	if err != nil {
		return Certs{}, err
	}
	files["client.pem"], files["client.key"] = clientCert, clientKey
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			return Certs{}, fmt.Errorf("write %s: %w", name, err)
		}
	}
	path := func(name string) string { return filepath.Join(dir, name) }
	c.CAFile, c.ServerCertFile, c.ServerKeyFile = path("ca.pem"), path("server.pem"), path("server.key")
	c.ClientCertFile, c.ClientKeyFile = path("client.pem"), path("client.key")
	return c, nil
}
