package temporalclient

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/converter"

	"github.com/agentrun/agentrun/internal/testkit/standalone"
)

func TestConfigFromEnvAppliesDefaultsWhenUnset(t *testing.T) {
	cfg, err := ConfigFromEnv(standalone.Getenv(nil))
	require.NoError(t, err)
	require.Equal(t, Config{Address: "localhost:7233", Namespace: "default"}, cfg)
}

func TestConfigFromEnvTakesSetValues(t *testing.T) {
	cfg, err := ConfigFromEnv(standalone.Getenv(map[string]string{
		"TEMPORAL_ADDRESS":   "temporal.internal:7234",
		"TEMPORAL_NAMESPACE": "agents",
	}))
	require.NoError(t, err)
	require.Equal(t, Config{Address: "temporal.internal:7234", Namespace: "agents"}, cfg)
}

func TestConfigFromEnvRejectsBadAddressNamingTheVariable(t *testing.T) {
	for _, address := range []string{"localhost", ":7233", "localhost:0", "localhost:http", "localhost:70000", "a:b:c"} {
		t.Run(address, func(t *testing.T) {
			_, err := ConfigFromEnv(standalone.Getenv(map[string]string{"TEMPORAL_ADDRESS": address}))
			require.Error(t, err)
			require.Contains(t, err.Error(), "TEMPORAL_ADDRESS")
		})
	}
}

func TestConfigFromEnvWithAnAPIKeyTurnsOnTLSAndSendsTheKey(t *testing.T) {
	cfg, err := ConfigFromEnv(standalone.Getenv(map[string]string{
		"TEMPORAL_ADDRESS":   "agents.a1b2c.tmprl.cloud:7233",
		"TEMPORAL_NAMESPACE": "agents.a1b2c",
		"TEMPORAL_API_KEY":   "eyJhbGciOi.key",
	}))
	require.NoError(t, err)

	opts := cfg.ClientOptions(nil)

	require.Equal(t, "agents.a1b2c.tmprl.cloud:7233", opts.HostPort)
	require.Equal(t, "agents.a1b2c", opts.Namespace)
	require.NotNil(t, opts.Credentials)
	require.NotNil(t, opts.ConnectionOptions.TLS, "Temporal Cloud's API keys need TLS, as the SDK's envconfig decides")
	require.True(t, cfg.TLS())
	require.True(t, cfg.APIKey())
}

func TestConfigFromEnvBuildsMutualTLSFromTheCertificateVariables(t *testing.T) {
	certs := standalone.Write(t)
	cfg, err := ConfigFromEnv(standalone.Getenv(map[string]string{
		"TEMPORAL_ADDRESS":                 "temporal.internal:7233",
		"TEMPORAL_TLS_CLIENT_CERT_PATH":    certs.ClientCertFile,
		"TEMPORAL_TLS_CLIENT_KEY_PATH":     certs.ClientKeyFile,
		"TEMPORAL_TLS_SERVER_CA_CERT_PATH": certs.CAFile,
		"TEMPORAL_TLS_SERVER_NAME":         "temporal.test",
	}))
	require.NoError(t, err)

	opts := cfg.ClientOptions(nil)

	require.Nil(t, opts.Credentials)
	tlsCfg := opts.ConnectionOptions.TLS
	require.NotNil(t, tlsCfg)
	require.Len(t, tlsCfg.Certificates, 1)
	require.NotNil(t, tlsCfg.RootCAs)
	require.Equal(t, "temporal.test", tlsCfg.ServerName)
	require.False(t, tlsCfg.InsecureSkipVerify)
}

func TestConfigWithoutTLSVariablesDialsPlaintext(t *testing.T) {
	cfg, err := ConfigFromEnv(standalone.Getenv(nil))
	require.NoError(t, err)
	opts := cfg.ClientOptions(nil)
	require.Nil(t, opts.ConnectionOptions.TLS)
	require.Nil(t, opts.Credentials)
	require.False(t, cfg.TLS())
}

func TestConfigFromAProfileFileWithVariablesOverridingIt(t *testing.T) {
	file := filepath.Join(t.TempDir(), "temporal.toml")
	require.NoError(t, os.WriteFile(file, []byte(`
[profile.default]
address = "localhost:7233"

[profile.prod]
address = "temporal.prod.internal:7233"
namespace = "agents-prod"
api_key = "prod-key"
[profile.prod.grpc_meta]
x-team = "reviews"
`), 0o600))

	cfg, err := ConfigFromEnv(standalone.Getenv(map[string]string{
		"TEMPORAL_CONFIG_FILE": file,
		"TEMPORAL_PROFILE":     "prod",
	}))
	require.NoError(t, err)
	require.Equal(t, "temporal.prod.internal:7233", cfg.Address)
	require.Equal(t, "agents-prod", cfg.Namespace)
	require.Equal(t, "prod", cfg.Profile)
	require.Equal(t, file, cfg.ConfigFile)
	require.True(t, cfg.APIKey())
	opts := cfg.ClientOptions(nil)
	require.NotNil(t, opts.HeadersProvider)
	headers, err := opts.HeadersProvider.GetHeaders(t.Context())
	require.NoError(t, err)
	require.Equal(t, map[string]string{"x-team": "reviews"}, headers)

	cfg, err = ConfigFromEnv(standalone.Getenv(map[string]string{
		"TEMPORAL_CONFIG_FILE": file,
		"TEMPORAL_PROFILE":     "prod",
		"TEMPORAL_NAMESPACE":   "agents-staging",
	}))
	require.NoError(t, err)
	require.Equal(t, "agents-staging", cfg.Namespace, "a variable overrides the profile")
	require.Equal(t, "temporal.prod.internal:7233", cfg.Address)

	cfg, err = ConfigFromEnv(standalone.Getenv(map[string]string{"TEMPORAL_CONFIG_FILE": file}))
	require.NoError(t, err)
	require.Equal(t, "default", cfg.Profile, "no TEMPORAL_PROFILE means the default profile")
	require.Equal(t, "default", cfg.Namespace)
	require.False(t, cfg.APIKey())
}

func TestConfigFromEnvTakesPayloadKeys(t *testing.T) {
	key := base64.StdEncoding.EncodeToString(make([]byte, 32))
	cfg, err := ConfigFromEnv(standalone.Getenv(map[string]string{"AGENTRUN_PAYLOAD_KEYS": "2026-02:" + key + ", 2026-01:" + key}))
	require.NoError(t, err)
	require.NotNil(t, cfg.Codec)
	require.Equal(t, "2026-02", cfg.Codec.EncryptingKeyID())
	require.NotSame(t, converter.GetDefaultDataConverter(), cfg.DataConverter())
}

func TestConfigFromEnvRejectsBadConnectionValuesNamingTheVariable(t *testing.T) {
	certs := standalone.Write(t)
	dir := t.TempDir()
	notPEM := filepath.Join(dir, "not.pem")
	require.NoError(t, os.WriteFile(notPEM, []byte("not a certificate"), 0o600))
	profiles := filepath.Join(dir, "temporal.toml")
	require.NoError(t, os.WriteFile(profiles, []byte("[profile.prod]\naddress = \"no-port\"\n"), 0o600))
	broken := filepath.Join(dir, "broken.toml")
	require.NoError(t, os.WriteFile(broken, []byte("[profile.prod\n"), 0o600))

	cases := []struct {
		name, variable string
		env            map[string]string
	}{
		{"tls not a bool", "TEMPORAL_TLS", map[string]string{"TEMPORAL_TLS": "yes"}},
		{"host verification not a bool", "TEMPORAL_TLS_DISABLE_HOST_VERIFICATION", map[string]string{"TEMPORAL_TLS_DISABLE_HOST_VERIFICATION": "on"}},
		{"cert without key", "TEMPORAL_TLS_CLIENT_CERT_PATH", map[string]string{"TEMPORAL_TLS_CLIENT_CERT_PATH": certs.ClientCertFile}},
		{"key without cert", "TEMPORAL_TLS_CLIENT_KEY_PATH", map[string]string{"TEMPORAL_TLS_CLIENT_KEY_PATH": certs.ClientKeyFile}},
		{"cert file missing", "TEMPORAL_TLS_CLIENT_CERT_PATH", map[string]string{
			"TEMPORAL_TLS_CLIENT_CERT_PATH": filepath.Join(dir, "missing.pem"), "TEMPORAL_TLS_CLIENT_KEY_PATH": certs.ClientKeyFile}},
		{"key of another cert", "TEMPORAL_TLS_CLIENT_CERT_PATH, TEMPORAL_TLS_CLIENT_KEY_PATH", map[string]string{
			"TEMPORAL_TLS_CLIENT_CERT_PATH": certs.ClientCertFile, "TEMPORAL_TLS_CLIENT_KEY_PATH": certs.ServerKeyFile}},
		{"CA missing", "TEMPORAL_TLS_SERVER_CA_CERT_PATH", map[string]string{"TEMPORAL_TLS_SERVER_CA_CERT_PATH": filepath.Join(dir, "missing.pem")}},
		{"CA not PEM", "TEMPORAL_TLS_SERVER_CA_CERT_PATH", map[string]string{"TEMPORAL_TLS_SERVER_CA_CERT_PATH": notPEM}},
		{"API key with a newline", "TEMPORAL_API_KEY", map[string]string{"TEMPORAL_API_KEY": "key\n"}},
		{"config file missing", "TEMPORAL_CONFIG_FILE", map[string]string{"TEMPORAL_CONFIG_FILE": filepath.Join(dir, "missing.toml")}},
		{"config file not TOML", "TEMPORAL_CONFIG_FILE", map[string]string{"TEMPORAL_CONFIG_FILE": broken}},
		{"unknown profile", "TEMPORAL_PROFILE", map[string]string{"TEMPORAL_CONFIG_FILE": profiles, "TEMPORAL_PROFILE": "staging"}},
		{"profile's bad address", "TEMPORAL_ADDRESS (address of profile \"prod\"", map[string]string{"TEMPORAL_CONFIG_FILE": profiles, "TEMPORAL_PROFILE": "prod"}},
		{"payload key too short", "AGENTRUN_PAYLOAD_KEYS", map[string]string{"AGENTRUN_PAYLOAD_KEYS": "k1:c2hvcnQ="}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ConfigFromEnv(standalone.Getenv(c.env))
			require.Error(t, err)
			require.True(t, strings.HasPrefix(err.Error(), c.variable), "error %q does not start with %s", err, c.variable)
		})
	}
}
