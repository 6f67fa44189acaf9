package approvalsrv

import (
	"maps"
	"net/netip"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/internal/testkit/standalone"
)

func TestConfigWithSecretsUsesTheDefaultAddress(t *testing.T) {
	cfg, err := ConfigFromEnv(standalone.Getenv(map[string]string{
		"APPROVAL_SECRET": testSecret, "GITHUB_WEBHOOK_SECRET": webhookSecret,
		"APPROVAL_IDENTITY_HEADER": "X-Forwarded-User", "APPROVAL_TRUSTED_PROXIES": "10.0.0.0/8, 192.168.1.7,::1",
	}))

	require.NoError(t, err)
	require.Equal(t, Config{
		Addr: "127.0.0.1:8080", Secret: testSecret, WebhookSecret: webhookSecret, IdentityHeader: "X-Forwarded-User",
		TaskQueue: "agent-runs",
		TrustedProxies: []netip.Prefix{
			netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("192.168.1.7/32"), netip.MustParsePrefix("::1/128"),
		},
	}, cfg)
	require.Empty(t, cfg.InsecureWarnings())
}

func TestConfigWithoutSecretsRefusesToStartNamingThem(t *testing.T) {
	_, err := ConfigFromEnv(standalone.Getenv(nil))

	require.ErrorContains(t, err, "APPROVAL_SECRET and GITHUB_WEBHOOK_SECRET not set")
	require.ErrorContains(t, err, "APPROVAL_INSECURE_DEV=1")
}

func TestConfigWithoutWebhookSecretRefusesToStart(t *testing.T) {
	_, err := ConfigFromEnv(standalone.Getenv(map[string]string{"APPROVAL_SECRET": testSecret}))

	require.ErrorContains(t, err, "GITHUB_WEBHOOK_SECRET not set")
}

func TestInsecureDevStartsWithoutSecretsAndSaysWhatIsOff(t *testing.T) {
	cfg, err := ConfigFromEnv(standalone.Getenv(map[string]string{"APPROVAL_INSECURE_DEV": "1", "APPROVAL_ADDR": "localhost:9000"}))

	require.NoError(t, err)
	require.True(t, cfg.InsecureDev)
	require.Equal(t, "localhost:9000", cfg.Addr)
	require.Len(t, cfg.InsecureWarnings(), 4)
}

func TestConfigRejectsBadValuesNamingTheVariable(t *testing.T) {
	secrets := map[string]string{"APPROVAL_SECRET": testSecret, "GITHUB_WEBHOOK_SECRET": webhookSecret}
	with := func(extra map[string]string) map[string]string {
		env := maps.Clone(secrets)
		maps.Copy(env, extra)
		return env
	}
	cases := map[string]struct {
		env      map[string]string
		variable string
	}{
		"dev mode not a boolean":  {map[string]string{"APPROVAL_INSECURE_DEV": "yes please"}, "APPROVAL_INSECURE_DEV"},
		"short secret in dev":     {map[string]string{"APPROVAL_INSECURE_DEV": "1", "APPROVAL_SECRET": "short"}, "APPROVAL_SECRET"},
		"secret of 31 bytes":      {with(map[string]string{"APPROVAL_SECRET": strings.Repeat("s", 31)}), "APPROVAL_SECRET"},
		"webhook secret 31 bytes": {with(map[string]string{"GITHUB_WEBHOOK_SECRET": strings.Repeat("w", 31)}), "GITHUB_WEBHOOK_SECRET"},
		"bad header name": {map[string]string{
			"APPROVAL_INSECURE_DEV": "1", "APPROVAL_IDENTITY_HEADER": "X User", "APPROVAL_TRUSTED_PROXIES": "127.0.0.1",
		}, "APPROVAL_IDENTITY_HEADER"},
		"identity header without trusted proxies": {with(map[string]string{"APPROVAL_IDENTITY_HEADER": "X-Forwarded-User"}), "APPROVAL_TRUSTED_PROXIES"},
		"trusted proxies without identity header": {with(map[string]string{"APPROVAL_TRUSTED_PROXIES": "10.0.0.0/8"}), "APPROVAL_IDENTITY_HEADER"},
		"trusted proxy not a CIDR": {with(map[string]string{
			"APPROVAL_IDENTITY_HEADER": "X-Forwarded-User", "APPROVAL_TRUSTED_PROXIES": "10.0.0.0/8,proxy.internal",
		}), "APPROVAL_TRUSTED_PROXIES"},
		"address without a port":       {with(map[string]string{"APPROVAL_ADDR": "127.0.0.1"}), "APPROVAL_ADDR"},
		"webhook address on the API's": {with(map[string]string{"APPROVAL_WEBHOOK_ADDR": "127.0.0.1:8080"}), "APPROVAL_WEBHOOK_ADDR"},
		"dev mode on all interfaces":   {map[string]string{"APPROVAL_INSECURE_DEV": "1", "APPROVAL_ADDR": "0.0.0.0:8080"}, "APPROVAL_ADDR"},
		"dev mode on an empty host":    {map[string]string{"APPROVAL_INSECURE_DEV": "1", "APPROVAL_ADDR": ":8080"}, "APPROVAL_ADDR"},
		"dev mode webhook on a LAN address": {map[string]string{
			"APPROVAL_INSECURE_DEV": "1", "APPROVAL_WEBHOOK_ADDR": "192.168.1.5:8081",
		}, "APPROVAL_WEBHOOK_ADDR"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := ConfigFromEnv(standalone.Getenv(c.env))

			require.ErrorContains(t, err, c.variable)
		})
	}
}

func TestConfigTakesASeparateWebhookAddressAndDevModeOnLoopback(t *testing.T) {
	cfg, err := ConfigFromEnv(standalone.Getenv(map[string]string{
		"APPROVAL_SECRET": testSecret, "GITHUB_WEBHOOK_SECRET": webhookSecret,
		"APPROVAL_ADDR": "0.0.0.0:8080", "APPROVAL_WEBHOOK_ADDR": "0.0.0.0:8081",
	}))
	require.NoError(t, err)
	require.Equal(t, "0.0.0.0:8081", cfg.WebhookAddr)

	dev, err := ConfigFromEnv(standalone.Getenv(map[string]string{
		"APPROVAL_INSECURE_DEV": "1", "APPROVAL_ADDR": "[::1]:8080", "APPROVAL_WEBHOOK_ADDR": "127.0.0.1:8081",
	}))
	require.NoError(t, err)
	require.Equal(t, "127.0.0.1:8081", dev.WebhookAddr)
}
