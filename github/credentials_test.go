package github_test

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/github"
	"github.com/agentrun/agentrun/internal/config"
)

func credentialsTable() config.Table[github.Credentials] {
	return config.Table[github.Credentials]{
		Program:  "sample",
		Settings: github.Settings(func(c *github.Credentials) *github.Credentials { return c }),
		Finish:   func(c *github.Credentials, _ func(string) string) error { return c.Validate() },
	}
}

func readCredentials(vars map[string]string) (github.Credentials, error) {
	return credentialsTable().Read(func(name string) string { return vars[name] })
}

func appKeyPEM(t *testing.T) (*rsa.PrivateKey, string) {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	require.NoError(t, err)
	return key, string(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}))
}

func TestAppIDAndKeyFileSwitchToAppMode(t *testing.T) {
	key, keyPEM := appKeyPEM(t)
	path := filepath.Join(t.TempDir(), "app.pem")
	require.NoError(t, os.WriteFile(path, []byte(keyPEM), 0o600))

	c, err := readCredentials(map[string]string{"GITHUB_APP_ID": "4242", "GITHUB_APP_PRIVATE_KEY_FILE": path})
	require.NoError(t, err)
	require.True(t, c.AppMode())
	require.Equal(t, int64(4242), c.AppID)
	require.True(t, key.Equal(c.AppKey))

	c, err = readCredentials(map[string]string{"GITHUB_TOKEN": "ghp_x"})
	require.NoError(t, err)
	require.False(t, c.AppMode(), "token mode stays as it is")
}

func TestBadAppSettingsStopStartUpNamingWhatIsWrong(t *testing.T) {
	_, keyPEM := appKeyPEM(t)
	for name, tc := range map[string]struct {
		vars map[string]string
		want string
	}{
		"a key that is no key": {map[string]string{"GITHUB_APP_ID": "1", "GITHUB_APP_PRIVATE_KEY_DATA": "ghp_notakey"},
			"GITHUB_APP_PRIVATE_KEY_DATA: not an RSA private key in PEM"},
		"an app ID that is no number": {map[string]string{"GITHUB_APP_ID": "Iv1.abc", "GITHUB_APP_PRIVATE_KEY_DATA": keyPEM},
			`GITHUB_APP_ID: "Iv1.abc" is not an app ID`},
		"an ID without its key": {map[string]string{"GITHUB_APP_ID": "1"},
			"GITHUB_APP_ID is set but the app's private key is not"},
		"a key without its ID": {map[string]string{"GITHUB_APP_PRIVATE_KEY_DATA": keyPEM},
			"GITHUB_APP_ID is not"},
		"a token beside the app": {map[string]string{"GITHUB_APP_ID": "1", "GITHUB_APP_PRIVATE_KEY_DATA": keyPEM, "GITHUB_TOKEN": "ghp_x"},
			"both GITHUB_TOKEN and GITHUB_APP_ID are set"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := readCredentials(tc.vars)
			require.ErrorContains(t, err, tc.want)
			require.NotContains(t, err.Error(), "PRIVATE KEY-----\nMII", "the key never enters a message")
		})
	}
}
