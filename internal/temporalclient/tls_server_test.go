package temporalclient_test

import (
	"context"
	"crypto/tls"
	"net/http"
	"net/http/httputil"
	"net/url"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/internal/temporalclient"

	"github.com/agentrun/agentrun/internal/testkit"
	"github.com/agentrun/agentrun/internal/testkit/standalone"
)

// tlsFront is what stands in front of a self-hosted or cloud frontend: it
// terminates TLS, asks for a client certificate signed by the CA, and passes
// the gRPC calls on to a plaintext dev server, which has no TLS of its own.
type tlsFront struct {
	addr string
	mu   sync.Mutex
	auth []string // Authorization headers seen
	peer []string // client certificates' common names
}

func startTLSFront(t *testing.T, certs standalone.Certs, backend string) *tlsFront {
	t.Helper()
	f := &tlsFront{}
	protocols := new(http.Protocols)
	protocols.SetUnencryptedHTTP2(true)
	proxy := &httputil.ReverseProxy{
		Rewrite:       func(r *httputil.ProxyRequest) { r.SetURL(&url.URL{Scheme: "http", Host: backend}) },
		Transport:     &http.Transport{Protocols: protocols},
		FlushInterval: -1,
	}
	srv := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			f.mu.Lock()
			f.auth = append(f.auth, r.Header.Get("Authorization"))
			for _, c := range r.TLS.PeerCertificates[:1] {
				f.peer = append(f.peer, c.Subject.CommonName)
			}
			f.mu.Unlock()
			proxy.ServeHTTP(w, r)
		}),
		TLSConfig: &tls.Config{
			Certificates: []tls.Certificate{certs.Server},
			ClientCAs:    certs.CA,
			ClientAuth:   tls.RequireAndVerifyClientCert,
			NextProtos:   []string{"h2"},
			MinVersion:   tls.VersionTLS12,
		},
	}
	l := testkit.Listen(t)
	go func() { _ = srv.ServeTLS(l, "", "") }()
	t.Cleanup(func() { _ = srv.Close() })
	f.addr = l.Addr().String()
	return f
}

func (f *tlsFront) seen() (auth, peers []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.auth...), append([]string(nil), f.peer...)
}

// configBehindTLSFront puts the shared dev server behind a TLS front and reads the
// client's configuration from the variables vars sets, given the front's
// address and the certificates.
func configBehindTLSFront(t *testing.T, vars func(addr string, certs standalone.Certs) map[string]string) (*tlsFront, temporalclient.Config) {
	t.Helper()
	s := testkit.SharedServer(t)
	certs := standalone.Write(t)
	front := startTLSFront(t, certs, s.Address())
	env := vars(front.addr, certs)
	cfg, err := temporalclient.ConfigFromEnv(func(k string) string { return env[k] })
	require.NoError(t, err)
	return front, cfg
}

func TestDialOverMutualTLSWithAnAPIKeyFromTheVariables(t *testing.T) {
	t.Parallel()
	front, cfg := configBehindTLSFront(t, func(addr string, certs standalone.Certs) map[string]string {
		return map[string]string{
			"TEMPORAL_ADDRESS":                 addr,
			"TEMPORAL_API_KEY":                 "test-api-key",
			"TEMPORAL_TLS_CLIENT_CERT_PATH":    certs.ClientCertFile,
			"TEMPORAL_TLS_CLIENT_KEY_PATH":     certs.ClientKeyFile,
			"TEMPORAL_TLS_SERVER_CA_CERT_PATH": certs.CAFile,
		}
	})

	c, err := temporalclient.Dial(context.Background(), cfg, nil)
	require.NoError(t, err)
	defer c.Close()
	_, err = c.CheckHealth(context.Background(), nil)
	require.NoError(t, err)

	auth, peers := front.seen()
	require.NotEmpty(t, auth)
	require.Contains(t, auth, "Bearer test-api-key")
	require.Contains(t, peers, "agentrun-worker")
}

func TestDialWithoutTheClientCertificateIsRefusedByAnMTLSFrontend(t *testing.T) {
	t.Parallel()
	front, cfg := configBehindTLSFront(t, func(addr string, certs standalone.Certs) map[string]string {
		return map[string]string{
			"TEMPORAL_ADDRESS":                 addr,
			"TEMPORAL_TLS":                     "true",
			"TEMPORAL_TLS_SERVER_CA_CERT_PATH": certs.CAFile,
		}
	})

	_, err := temporalclient.Dial(context.Background(), cfg, nil)

	require.Error(t, err)
	require.Contains(t, err.Error(), "cannot reach Temporal at "+front.addr+" (namespace default) over TLS")
}
