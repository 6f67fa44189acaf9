package temporalclient

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func envOf(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

func TestConfigFromEnvAppliesDefaultsWhenUnset(t *testing.T) {
	cfg, err := ConfigFromEnv(envOf(nil))
	require.NoError(t, err)
	require.Equal(t, Config{Address: "localhost:7233", Namespace: "default"}, cfg)
}

func TestConfigFromEnvTakesSetValues(t *testing.T) {
	cfg, err := ConfigFromEnv(envOf(map[string]string{
		"TEMPORAL_ADDRESS":   "temporal.internal:7234",
		"TEMPORAL_NAMESPACE": "agents",
	}))
	require.NoError(t, err)
	require.Equal(t, Config{Address: "temporal.internal:7234", Namespace: "agents"}, cfg)
}

func TestConfigFromEnvRejectsBadAddressNamingTheVariable(t *testing.T) {
	for _, address := range []string{"localhost", ":7233", "localhost:0", "localhost:http", "localhost:70000", "a:b:c"} {
		t.Run(address, func(t *testing.T) {
			_, err := ConfigFromEnv(envOf(map[string]string{"TEMPORAL_ADDRESS": address}))
			require.Error(t, err)
			require.Contains(t, err.Error(), "TEMPORAL_ADDRESS")
		})
	}
}
