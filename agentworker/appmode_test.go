package agentworker

import (
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/internal/ghsandbox"
	"github.com/agentrun/agentrun/internal/testkit"
	"github.com/agentrun/agentrun/internal/testkit/standalone"
)

// A worker in app mode whose app ID is not the key's, or whose key file
// holds no key, stops at start-up with exit code 2, naming what is wrong
// and never quoting the key.
func TestWorkerInAppModeWithAWrongAppIDOrKeyExitsWith2NamingIt(t *testing.T) {
	sb := ghsandbox.New(ghsandbox.DefaultFixture())
	url, _ := testkit.ServeSandbox(t, sb)
	creds := testkit.SandboxApp(t, sb, url, 0)
	keyPEM := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(creds.AppKey)})
	dir := t.TempDir()
	keyFile, notAKey := filepath.Join(dir, "app.pem"), filepath.Join(dir, "token.pem")
	require.NoError(t, os.WriteFile(keyFile, keyPEM, 0o600))
	require.NoError(t, os.WriteFile(notAKey, []byte("ghp_not_a_key\n"), 0o600))

	for name, tc := range map[string]struct {
		appID, keyFile, want string
	}{
		"another app's ID":      {strconv.Itoa(testkit.SandboxAppID + 1), keyFile, "GITHUB_APP_ID 4243 is not the app this private key belongs to"},
		"a file that is no key": {strconv.Itoa(testkit.SandboxAppID), notAKey, "GITHUB_APP_PRIVATE_KEY_FILE"},
	} {
		t.Run(name, func(t *testing.T) {
			var stderr strings.Builder
			err := run(t.Context(), standalone.Getenv(map[string]string{
				"GITHUB_API_URL": url, "GITHUB_APP_ID": tc.appID, "GITHUB_APP_PRIVATE_KEY_FILE": tc.keyFile,
				"TEMPORAL_ADDRESS": unreachableTemporal(t),
			}), &stderr)

			require.Equal(t, 2, exitCode(err, &stderr), stderr.String())
			require.Contains(t, stderr.String(), tc.want)
			require.NotContains(t, stderr.String(), "PRIVATE KEY-----\nMII")
		})
	}
}
