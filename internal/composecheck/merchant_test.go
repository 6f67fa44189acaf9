package composecheck

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/internal/agentworker"
)

// The header's sandbox line: AGENT_MERCHANT_URL reaches the worker, which
// then serves the recommend agent; unset, it serves none.
func TestComposePassesTheMerchantURLToTheWorker(t *testing.T) {
	worker := service(t, mustLoadCompose(t, map[string]string{"AGENT_MERCHANT_URL": "http://ghsandbox:9090"}), serviceWorker)
	cfg, err := agentworker.ConfigFromEnv(getenv(worker))
	require.NoError(t, err)
	require.Equal(t, "http://ghsandbox:9090", cfg.MerchantURL)

	worker = service(t, mustLoadCompose(t, nil), serviceWorker)
	cfg, err = agentworker.ConfigFromEnv(getenv(worker))
	require.NoError(t, err)
	require.Empty(t, cfg.MerchantURL)
}
