package temporalclient_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/internal/temporalclient"
	"github.com/agentrun/agentrun/internal/testkit"
)

// The tests below dial one dev server, the binary's shared one: none needs
// options of its own or changes anything on it.
func TestMain(m *testing.M) { testkit.RunTests(m) }

func TestDialReachesARunningServer(t *testing.T) {
	t.Parallel()
	s := testkit.SharedServer(t)

	c, err := temporalclient.Dial(context.Background(), s.Config(), nil)
	require.NoError(t, err)
	defer c.Close()

	_, err = c.CheckHealth(context.Background(), nil)
	require.NoError(t, err)
}

func TestDialToUnknownNamespaceFailsNamingIt(t *testing.T) {
	t.Parallel()
	s := testkit.SharedServer(t)
	cfg := s.Config()
	cfg.Namespace = "no-such-namespace"

	_, err := temporalclient.Dial(context.Background(), cfg, nil)

	require.Error(t, err)
	require.Contains(t, err.Error(), "namespace no-such-namespace")
	require.Contains(t, err.Error(), s.Address())
}

// Both settings reach a real server: the SDK falls back per RPC only when
// the server refuses gzip, so a wrong choice would show here.
func TestDialWithEitherGRPCCompressionServesRequests(t *testing.T) {
	t.Parallel()
	s := testkit.SharedServer(t)
	for _, c := range []temporalclient.Compression{temporalclient.CompressionGzip, temporalclient.CompressionNone} {
		cfg := s.Config()
		cfg.Compression = c
		cl, err := temporalclient.Dial(context.Background(), cfg, nil)
		require.NoError(t, err, c)
		_, err = cl.DescribeTaskQueue(context.Background(), "compression-check", 0)
		require.NoError(t, err, c)
		cl.Close()
	}
}
