package main

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/internal/testkit"
	"github.com/agentrun/agentrun/runclient"
)

func TestStarterOnANamespaceWithoutTheSearchAttributesPrintsTheOneCommandThatAddsThem(t *testing.T) {
	testkit.NeedsDevServer(t)
	server := testkit.StartServer(t, testkit.ServerOptions{NoSearchAttributes: true})
	vars := map[string]string{"TEMPORAL_ADDRESS": server.Address(), "USER": "carol"}
	fix := "add them with: " + runclient.AddSearchAttributesCommand(server.Address(), "default")
	missing := "namespace default on Temporal at " + server.Address() +
		" lacks the search attributes AgentRunActionIds, AgentRunAgent, AgentRunStatus, ConversationId"

	for _, args := range [][]string{
		{"start", "--repo", "acme/widgets", "--pr", "1"},
		{"list", "--status", "waiting_for_user"},
		{"list", "--status", "running"},
	} {
		r := starterWith(vars, args...)

		require.Equal(t, exitError, r.code, "%v: %s", args, r.stderr)
		require.Contains(t, r.stderr, missing, "%v", args)
		require.Contains(t, r.stderr, fix, "%v", args)
	}
}
