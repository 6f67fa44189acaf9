package main

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The app's settings: the worker's own private key file serves (only its
// public half is kept), and an ID without a key, or a file without a key,
// stops start-up naming the variable.
func TestSandboxAppSettings(t *testing.T) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	require.NoError(t, err)
	dir := t.TempDir()
	private := filepath.Join(dir, "app.pem")
	require.NoError(t, os.WriteFile(private, pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}), 0o600))
	public := filepath.Join(dir, "app.pub")
	der, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(public, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}), 0o600))
	read := func(vars map[string]string) error {
		cfg, err := loadConfig(func(name string) string { return vars[name] })
		if err == nil {
			require.True(t, key.PublicKey.Equal(cfg.App.PublicKey))
			require.Equal(t, int64(7), cfg.App.ID)
			require.Equal(t, 90*time.Second, cfg.App.TokenLifetime)
		}
		return err
	}

	for _, file := range []string{private, public} {
		require.NoError(t, read(map[string]string{"SANDBOX_APP_ID": "7", "SANDBOX_APP_KEY_FILE": file, "SANDBOX_APP_TOKEN_LIFETIME": "90s"}))
	}
	require.ErrorContains(t, read(map[string]string{"SANDBOX_APP_ID": "7"}), "SANDBOX_APP_ID and SANDBOX_APP_KEY_FILE go together")
	require.ErrorContains(t, read(map[string]string{"SANDBOX_APP_ID": "7", "SANDBOX_APP_KEY_FILE": filepath.Join(dir, "nope")}), "SANDBOX_APP_KEY_FILE")
	require.ErrorContains(t, read(map[string]string{"SANDBOX_APP_ID": "seven", "SANDBOX_APP_KEY_FILE": private}), "SANDBOX_APP_ID")
	require.ErrorContains(t, read(map[string]string{"SANDBOX_APP_TOKEN_LIFETIME": "-1s"}), "SANDBOX_APP_TOKEN_LIFETIME")
}
