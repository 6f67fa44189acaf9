package main

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/internal/testkit"
	"github.com/agentrun/agentrun/internal/testkit/standalone"
	"github.com/agentrun/agentrun/runclient"
)

func TestApprovalServerOnANamespaceWithoutTheSearchAttributesAnswers503AndLogsTheCommand(t *testing.T) {
	testkit.NeedsDevServer(t)
	server := testkit.StartServer(t, testkit.ServerOptions{NoSearchAttributes: true})
	cfg, err := loadConfig(standalone.Getenv(map[string]string{
		"APPROVAL_SECRET": e2eSecret, "GITHUB_WEBHOOK_SECRET": e2eWebhookSecret, "TEMPORAL_ADDRESS": server.Address(), "GITHUB_TOKEN": "unused",
	}))
	require.NoError(t, err)
	logs := testkit.NewTailBuffer(1 << 20)
	srv, err := newServer(context.Background(), cfg, server.Client(), slog.New(slog.NewTextHandler(logs, nil)))
	require.NoError(t, err)
	s := &stack{t: t, temporal: server.Client(), cfg: cfg, approval: httptest.NewServer(srv.Handler())}
	t.Cleanup(s.approval.Close)

	resp, reply := s.signedStart("bare-namespace-1", []byte(`{"repo":"acme/widgets","pullNumber":1,"approvers":["alice"],"userId":"carol"}`))

	require.Equal(t, http.StatusServiceUnavailable, resp.StatusCode, reply)
	require.Contains(t, reply["error"], "the Temporal namespace is not set up for agentrun")
	for _, internal := range []string{"AgentRunAgent", "no mapping", server.Address()} {
		require.NotContains(t, reply["error"], internal, "the caller gets no server text")
	}
	require.Contains(t, logs.String(), "lacks the search attributes AgentRunActionIds, AgentRunAgent, AgentRunStatus, ConversationId")
	require.Contains(t, logs.String(), runclient.AddSearchAttributesCommand(server.Address(), "default"))
}
