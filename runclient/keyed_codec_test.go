package runclient_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/converter"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/payloadcodec"
	"github.com/agentrun/agentrun/internal/temporalclient"
	"github.com/agentrun/agentrun/internal/testkit"
	"github.com/agentrun/agentrun/runclient"
)

// With AGENTRUN_PAYLOAD_KEYS the memo is encrypted like every payload: the
// server stores ciphertext, and a client with the keys still tells a repeat
// from a conflict.
func TestTheRequestHashIsEncryptedAndStillComparedUnderPayloadKeys(t *testing.T) {
	t.Parallel()
	codec, err := payloadcodec.Parse(payloadcodec.NewKeyEntry("2026-12"))
	require.NoError(t, err)
	server := testkit.SharedServer(t)
	rc := runclient.New(server.Dial(t, temporalclient.Config{Codec: codec}), runclient.Options{})
	ctx := testContext(t)
	// No worker polls the queue: the start and the memo are all this needs.
	in := api.RunInput{Repo: "acme/widgets", PullNumber: 7, UserID: "carol"}
	key := testkit.Unique(t, "k")
	req := keyedRequest("no-worker", key, in)

	_, err = rc.Start(ctx, req)
	require.NoError(t, err)
	_, err = rc.Start(ctx, req)
	require.NoError(t, err, "a repeat")
	other := in
	other.PullNumber = 8
	_, err = rc.Start(ctx, keyedRequest("no-worker", key, other))
	require.ErrorIs(t, err, runclient.ErrIdempotencyConflict)

	raw, err := server.Client().DescribeWorkflow(ctx, req.RunID, "")
	require.NoError(t, err)
	stored := raw.Memo.GetFields()[api.MemoRequestHash]
	require.NotNil(t, stored)
	require.Equal(t, payloadcodec.EncodingEncrypted, string(stored.GetMetadata()[converter.MetadataEncoding]))
	require.NotContains(t, string(stored.GetData()), runclient.RequestHash(in), "the server holds ciphertext only")
}
