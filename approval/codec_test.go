package main

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/payloadcodec"
	"github.com/agentrun/agentrun/internal/temporalclient"
	"github.com/agentrun/agentrun/internal/testkit"
	"github.com/agentrun/agentrun/internal/testkit/standalone"
)

const (
	codecToken = "codec-e2e-token-0123456789abcdef0123"
	codecQueue = "codec-e2e"
	// Texts of the sandbox's acme/widgets#1 that a run carries in its
	// history: the title, a line of the diff, and the review's comment.
	prTitle  = "Cache widgets in memory"
	diffLine = "evict stale entries once the cache grows"
)

// codecApproval is the approval listener as the main wires it for keys.
func codecApproval(t *testing.T, base *testkit.Stack, keys string) *httptest.Server {
	t.Helper()
	env := map[string]string{
		"AGENTRUN_PAYLOAD_KEYS":       keys,
		"APPROVAL_SECRET":             e2eSecret,
		"GITHUB_WEBHOOK_SECRET":       e2eWebhookSecret,
		"TEMPORAL_ADDRESS":            base.TemporalAddress(),
		"GITHUB_API_URL":              base.GitHubURL,
		"GITHUB_TOKEN":                "sandbox-token",
		"AGENTRUN_CODEC_TOKEN":        codecToken,
		"AGENTRUN_CODEC_CORS_ORIGINS": "http://localhost:8233",
	}
	cfg, err := loadConfig(standalone.Getenv(env))
	require.NoError(t, err)
	srv, err := newServer(context.Background(), cfg, base.Client(), slog.New(slog.NewTextHandler(io.Discard, nil)))
	require.NoError(t, err)
	approval := httptest.NewServer(srv.Handler())
	t.Cleanup(approval.Close)
	return approval
}

// showHistory is `temporal workflow show --output json`, as an operator
// would read the run, with extra flags (a codec endpoint).
func showHistory(t *testing.T, address, workflowID string, extra ...string) string {
	t.Helper()
	root, err := testkit.RepoRoot()
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	args := append([]string{"workflow", "show", "--address", address, "--workflow-id", workflowID, "--output", "json"}, extra...)
	out, err := exec.CommandContext(ctx, filepath.Join(root, "bin", "temporal"), args...).CombinedOutput()
	require.NoError(t, err, "temporal %s:\n%s", strings.Join(args, " "), out)
	return string(out)
}

// payloadText is every byte of a `workflow show --output json` history, with
// the payloads' base64 undone: text in any payload, plain or decoded, shows
// up in it as it would to a reader of the server's database.
func payloadText(t *testing.T, showJSON string) string {
	t.Helper()
	var h historypb.History
	require.NoError(t, protojson.UnmarshalOptions{DiscardUnknown: true}.Unmarshal([]byte(showJSON), &h))
	require.NotEmpty(t, h.Events)
	b, err := proto.Marshal(&h)
	require.NoError(t, err)
	return string(b)
}

func TestEncryptedRunHistoryHidesThePullRequestAndTheCodecEndpointShowsIt(t *testing.T) {
	oldKey := payloadcodec.NewKeyEntry("2026-01")
	codec, err := payloadcodec.Parse(oldKey)
	require.NoError(t, err)
	base := testkit.StartStack(t, testkit.StackOptions{TaskQueue: codecQueue, PayloadCodec: codec})
	approval := codecApproval(t, base, oldKey)

	run := base.StartReview(t, codecQueue)
	// The query answers through the codec: the worker encrypts, the client decrypts.
	action := base.WaitForApproval(t, run.GetID())
	require.NotEmpty(t, action.Preview)
	preview := firstLine(action.Preview)
	base.Approve(t, run.GetID(), action.ID)
	res := base.WaitForResult(t, run)
	require.NotEmpty(t, res.Status)

	raw := showHistory(t, base.TemporalAddress(), run.GetID())
	decoded := showHistory(t, base.TemporalAddress(), run.GetID(),
		"--codec-endpoint", approval.URL+"/codec", "--codec-auth", "Bearer "+codecToken)
	rawText, decodedText := payloadText(t, raw), payloadText(t, decoded)
	for _, secret := range []string{prTitle, diffLine, preview} {
		require.NotContains(t, rawText, secret, "raw history")
		require.Contains(t, decodedText, secret, "history through the codec endpoint")
	}
	require.Contains(t, rawText, payloadcodec.EncodingEncrypted)
	require.NotContains(t, decodedText, payloadcodec.EncodingEncrypted)

	// A rotated ring, new key first and the old one kept, still reads the
	// run, through the endpoint and through a client's query.
	rotated := payloadcodec.NewKeyEntry("2026-02") + "," + oldKey
	rotatedApproval := codecApproval(t, base, rotated)
	again := showHistory(t, base.TemporalAddress(), run.GetID(),
		"--codec-endpoint", rotatedApproval.URL+"/codec", "--codec-auth", "Bearer "+codecToken)
	require.Contains(t, payloadText(t, again), prTitle)
	rotatedClient := dialWithKeys(t, base, rotated)
	v, err := rotatedClient.QueryWorkflow(context.Background(), run.GetID(), "", api.QueryRun)
	require.NoError(t, err)
	var snap api.RunSnapshot
	require.NoError(t, v.Get(&snap))
	require.Equal(t, run.GetID(), snap.Run.ID)

	// A client without the keys, as anyone with namespace access has, gets
	// the worker's answer as ciphertext it cannot decode.
	v, err = base.PlainClient().QueryWorkflow(context.Background(), run.GetID(), "", api.QueryRun)
	require.NoError(t, err)
	require.ErrorContains(t, v.Get(&snap), "encoding")

	// Without the token the endpoint decrypts nothing.
	resp, err := http.Post(approval.URL+"/codec/decode", "application/json", strings.NewReader(`{"payloads":[]}`))
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusUnauthorized, resp.StatusCode)
}

func dialWithKeys(t *testing.T, base *testkit.Stack, keys string) client.Client {
	t.Helper()
	cfg, err := temporalclient.ConfigFromEnv(standalone.Getenv(map[string]string{
		"TEMPORAL_ADDRESS": base.TemporalAddress(), "AGENTRUN_PAYLOAD_KEYS": keys,
	}))
	require.NoError(t, err)
	c, err := temporalclient.Dial(context.Background(), cfg, nil)
	require.NoError(t, err)
	t.Cleanup(c.Close)
	return c
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}
