package prodtest

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/e2e"
	"github.com/agentrun/agentrun/internal/payloadcodec"
	"github.com/agentrun/agentrun/internal/temporalclient"
)

// TestProdClusterKeepsEveryRunsGuarantees runs the failure stories on one
// cluster, in sequence, each on a task queue and run of its own; the server
// restart comes last.
func TestProdClusterKeepsEveryRunsGuarantees(t *testing.T) {
	s := newStack(t)

	t.Run("the frontend refuses a client without a certificate", func(t *testing.T) {
		env := s.cluster.ClientEnv()
		delete(env, "TEMPORAL_TLS_CLIENT_CERT_PATH")
		delete(env, "TEMPORAL_TLS_CLIENT_KEY_PATH")
		cfg, err := temporalclient.ConfigFromEnv(func(k string) string { return env[k] })
		require.NoError(t, err)

		_, err = temporalclient.Dial(context.Background(), cfg, nil)

		// How the refusal reads depends on when the server's alert arrives
		// (an alert, a reset, a broken pipe); the stack's own client, the
		// same variables with the certificate, is connected.
		require.ErrorContains(t, err, "cannot reach Temporal at "+cfg.Address+" (namespace default) over TLS")
	})

	t.Run("a lost comment response and a worker restart leave exactly one comment", func(t *testing.T) {
		lostResponseThenWorkerRestart(t, s)
	})
	t.Run("two workers, the posting one SIGKILLed, leave exactly one comment", func(t *testing.T) {
		twoWorkersOneKilled(t, s)
	})
	t.Run("a server restart during the approval wait keeps the run and posts one comment", func(t *testing.T) {
		serverRestartWhileWaiting(t, s)
	})

	posted := s.sandbox.PostedComments(t)
	require.Zero(t, posted.Duplicates(), "no operation was posted twice")
}

// requireEncryptedOnTheServer reads the run's start from the server without
// the keys: its input is ciphertext, naming neither the repository nor the
// pull request's author.
func requireEncryptedOnTheServer(t *testing.T, s *stack, runID string) {
	t.Helper()
	plain := s.cluster.PlainClient(t)
	iter := plain.GetWorkflowHistory(context.Background(), runID, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	require.True(t, iter.HasNext())
	first, err := iter.Next()
	require.NoError(t, err)
	input := first.GetWorkflowExecutionStartedEventAttributes().GetInput().GetPayloads()
	require.NotEmpty(t, input)
	for _, p := range input {
		require.Equal(t, payloadcodec.EncodingEncrypted, string(p.GetMetadata()["encoding"]))
		require.NotContains(t, string(p.GetData()), e2e.PullRepo)
		require.NotContains(t, string(p.GetData()), "carol")
	}
}

// requirePrefix checks that the events a run had recorded are still its
// first events, in order.
func requirePrefix(t *testing.T, before, after []api.Event) {
	t.Helper()
	require.GreaterOrEqual(t, len(after), len(before))
	require.Equal(t, before, after[:len(before)], "the events recorded before are kept, in order")
}
