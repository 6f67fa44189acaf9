package prodstack

import (
	"context"
	"maps"
	"testing"

	"go.temporal.io/sdk/client"

	"github.com/agentrun/agentrun/internal/payloadcodec"
	"github.com/agentrun/agentrun/internal/temporalclient"
	"github.com/agentrun/agentrun/internal/testkit/standalone"

	"github.com/agentrun/agentrun/internal/testkit"
)

// payloadKeyID names the cluster's payload key in every payload it encrypts.
const payloadKeyID = "prodstack-1"

// Cluster is a running production engine: PostgreSQL, the Temporal server
// with mTLS on its frontend, and the default namespace with agentrun's
// search attributes.
type Cluster struct {
	server   *temporalServer
	postgres *postgresServer
	env      map[string]string
	cfg      temporalclient.Config
	client   client.Client
}

// Options say how a cluster runs.
type Options struct {
	// Durable runs PostgreSQL with fsync and synchronous commits on, as in
	// production: for measuring the engine's cost, not for proving
	// agentrun's guarantees (the process-level faults do not need it).
	Durable bool
}

// Start starts a cluster, or skips or fails t as Require says when this
// machine lacks what it needs. Everything is stopped when t ends.
func Start(t testing.TB) *Cluster { return StartWith(t, Options{}) }

// StartWith is Start with opts.
func StartWith(t testing.TB, opts Options) *Cluster {
	t.Helper()
	tl := requireTools(t)
	certs := standalone.Write(t)
	pg := startPostgres(t, tl, opts.Durable)
	setupSchema(t, tl, pg)
	sc := newServerConfig(t, pg, tl, certs)
	root := t.TempDir()
	if err := sc.write(root); err != nil {
		t.Fatalf("prodstack: %v", err)
	}
	c := &Cluster{server: &temporalServer{binary: tl.server, root: root}, postgres: pg}
	// The variables a deployment sets for the worker, the starter and the
	// approval server: the production connection path, end to end.
	c.env = map[string]string{
		"TEMPORAL_ADDRESS":                 sc.Frontend,
		"TEMPORAL_NAMESPACE":               temporalclient.DefaultNamespace,
		"TEMPORAL_TLS_CLIENT_CERT_PATH":    certs.ClientCertFile,
		"TEMPORAL_TLS_CLIENT_KEY_PATH":     certs.ClientKeyFile,
		"TEMPORAL_TLS_SERVER_CA_CERT_PATH": certs.CAFile,
		"AGENTRUN_PAYLOAD_KEYS":            payloadcodec.NewKeyEntry(payloadKeyID),
	}
	var err error
	if c.cfg, err = temporalclient.ConfigFromEnv(standalone.Getenv(c.env)); err != nil {
		t.Fatalf("prodstack: the cluster's client variables: %v", err)
	}

	c.server.start(t)
	admin := c.server.waitServing(t, c.cfg)
	registerNamespace(t, admin, c.cfg.Namespace)
	admin.Close()
	if c.client, err = temporalclient.Dial(context.Background(), c.cfg, testkit.QuietLogger()); err != nil {
		t.Fatalf("prodstack: dial the cluster: %v", err)
	}
	t.Cleanup(c.client.Close)
	return c
}

// ClientEnv is the environment that takes a program to this cluster:
// TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, the TEMPORAL_TLS_* paths of the
// client certificate and the CA, and AGENTRUN_PAYLOAD_KEYS.
func (c *Cluster) ClientEnv() map[string]string { return maps.Clone(c.env) }

// Address is the frontend's host:port.
func (c *Cluster) Address() string { return c.cfg.Address }

// Client is a client made from ClientEnv by temporalclient, as the
// programs make theirs: mTLS and the payload codec. It outlives
// RestartServer; the SDK reconnects.
func (c *Cluster) Client() client.Client { return c.client }

// PlainClient is a client over the same mTLS connection without the
// payload keys: what someone who can read the namespace, but holds no key,
// sees. It is closed when t ends.
func (c *Cluster) PlainClient(t testing.TB) client.Client {
	t.Helper()
	env := c.ClientEnv()
	delete(env, "AGENTRUN_PAYLOAD_KEYS")
	return c.dial(t, env)
}

func (c *Cluster) dial(t testing.TB, env map[string]string) client.Client {
	t.Helper()
	cfg, err := temporalclient.ConfigFromEnv(standalone.Getenv(env))
	if err != nil {
		t.Fatalf("prodstack: the client variables: %v", err)
	}
	cl, err := temporalclient.Dial(context.Background(), cfg, testkit.QuietLogger())
	if err != nil {
		t.Fatalf("prodstack: dial the cluster: %v", err)
	}
	t.Cleanup(cl.Close)
	return cl
}

// RestartServer stops the Temporal server process (SIGTERM, as an
// orchestrator would) and starts it again on the same config and database,
// then waits until its frontend serves the namespace again. It reports
// whether the server stopped within its grace period rather than being
// killed.
func (c *Cluster) RestartServer(t testing.TB) bool {
	t.Helper()
	clean := c.server.stop()
	c.server.start(t)
	admin := c.server.waitServing(t, c.cfg)
	defer admin.Close()
	registerNamespace(t, admin, c.cfg.Namespace)
	return clean
}
