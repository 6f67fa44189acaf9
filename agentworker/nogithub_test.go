package agentworker

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/internal/testkit/standalone"
)

func TestAWorkerWithNoGitHubVariableAndNoAgentOfItsOwnExitsTwoSayingWhatToSet(t *testing.T) {
	var stderr bytes.Buffer

	err := run(context.Background(), standalone.Getenv(map[string]string{"TEMPORAL_ADDRESS": unreachableTemporal(t)}), &stderr)

	require.Equal(t, 2, exitCode(err, &stderr))
	require.Contains(t, stderr.String(), "no GitHub variable is set")
	require.Contains(t, stderr.String(), "set GITHUB_TOKEN, or serve agents that use none with AGENT_TOOLS_FILE or AGENT_MERCHANT_URL")
	require.NotContains(t, stderr.String(), "cannot reach Temporal", "nothing connects before the tools are known")
}

func TestAWorkerWithNoGitHubVariableAndTheRecommenderStartsWithoutAskingGitHub(t *testing.T) {
	var logs bytes.Buffer

	err := run(context.Background(), standalone.Getenv(map[string]string{
		"TEMPORAL_ADDRESS": unreachableTemporal(t), "AGENT_MERCHANT_URL": "http://127.0.0.1:9090",
	}), &logs)

	// It gets as far as Temporal, which nothing serves here: no GitHub
	// identity was needed to start.
	require.ErrorContains(t, err, "cannot reach Temporal")
	require.Contains(t, logs.String(), "no GitHub variable is set: serving only agents that use no GitHub tool")
	require.NotContains(t, logs.String(), "GitHub target")
}
