package agentworker

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/internal/testkit/standalone"
)

func TestWorkerTakesItsCallbackAllowListAndTheKeyThatSignsDeliveries(t *testing.T) {
	cfg, err := ConfigFromEnv(standalone.Getenv(map[string]string{
		"AGENTRUN_CALLBACK_ALLOWED": "https://hooks.example.com/agentrun/",
		"AGENTRUN_CALLBACK_SECRET":  "0123456789abcdef0123456789abcdef",
	}))
	require.NoError(t, err)
	require.NoError(t, cfg.Callbacks.Allowed.Check("https://hooks.example.com/agentrun/run-1"))
	require.Error(t, cfg.Callbacks.Allowed.Check("https://hooks.example.com.evil.com/agentrun/run-1"))
	require.Equal(t, []byte("0123456789abcdef0123456789abcdef"), cfg.Callbacks.Secret)

	acts, err := NewActivities(cfg)
	require.NoError(t, err)
	require.Equal(t, cfg.Callbacks.Secret, acts.Callbacks.Secret, "the activity signs with the worker's key")
}

func TestWorkerRefusesACallbackSettingItCannotHonour(t *testing.T) {
	for name, env := range map[string]map[string]string{
		"prefix with user info": {"AGENTRUN_CALLBACK_ALLOWED": "https://u:p@hooks.example.com/", "AGENTRUN_CALLBACK_SECRET": "0123456789abcdef0123456789abcdef"},
		"allow-list, no secret": {"AGENTRUN_CALLBACK_ALLOWED": "https://hooks.example.com/"},
		"secret under 32 bytes": {"AGENTRUN_CALLBACK_ALLOWED": "https://hooks.example.com/", "AGENTRUN_CALLBACK_SECRET": "short"},
	} {
		_, err := ConfigFromEnv(standalone.Getenv(env))
		require.Error(t, err, name)
		require.Contains(t, err.Error(), "AGENTRUN_CALLBACK_", name)
	}
}
