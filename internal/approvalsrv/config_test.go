package approvalsrv

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func envOf(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

func TestConfigWithSecretsUsesTheDefaultAddress(t *testing.T) {
	cfg, err := ConfigFromEnv(envOf(map[string]string{
		"APPROVAL_SECRET": testSecret, "GITHUB_WEBHOOK_SECRET": "hook", "APPROVAL_IDENTITY_HEADER": "X-Forwarded-User",
	}))

	require.NoError(t, err)
	require.Equal(t, Config{Addr: "127.0.0.1:8080", Secret: testSecret, WebhookSecret: "hook", IdentityHeader: "X-Forwarded-User"}, cfg)
	require.Empty(t, cfg.InsecureWarnings())
}

func TestConfigWithoutSecretsRefusesToStartNamingThem(t *testing.T) {
	_, err := ConfigFromEnv(envOf(nil))

	require.ErrorContains(t, err, "APPROVAL_SECRET and GITHUB_WEBHOOK_SECRET not set")
	require.ErrorContains(t, err, "APPROVAL_INSECURE_DEV=1")
}

func TestConfigWithoutWebhookSecretRefusesToStart(t *testing.T) {
	_, err := ConfigFromEnv(envOf(map[string]string{"APPROVAL_SECRET": testSecret}))

	require.ErrorContains(t, err, "GITHUB_WEBHOOK_SECRET not set")
}

func TestInsecureDevStartsWithoutSecretsAndSaysWhatIsOff(t *testing.T) {
	cfg, err := ConfigFromEnv(envOf(map[string]string{"APPROVAL_INSECURE_DEV": "1", "APPROVAL_ADDR": "0.0.0.0:9000"}))

	require.NoError(t, err)
	require.True(t, cfg.InsecureDev)
	require.Equal(t, "0.0.0.0:9000", cfg.Addr)
	require.Len(t, cfg.InsecureWarnings(), 3)
}

func TestConfigRejectsBadValuesNamingTheVariable(t *testing.T) {
	cases := map[string]map[string]string{
		"APPROVAL_INSECURE_DEV":    {"APPROVAL_INSECURE_DEV": "yes please"},
		"APPROVAL_SECRET":          {"APPROVAL_INSECURE_DEV": "1", "APPROVAL_SECRET": "short"},
		"APPROVAL_IDENTITY_HEADER": {"APPROVAL_INSECURE_DEV": "1", "APPROVAL_IDENTITY_HEADER": "X User"},
	}
	for variable, env := range cases {
		t.Run(variable, func(t *testing.T) {
			_, err := ConfigFromEnv(envOf(env))

			require.ErrorContains(t, err, variable)
		})
	}
}
