package testkit_test

import (
	"bytes"
	"net/http/httptest"
	"testing"

	"github.com/google/go-github/v62/github"
	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/internal/testkit"
)

// The signature tests deliver with must be the one go-github, and so the
// server, accepts: otherwise every webhook test would prove only itself.
func TestGitHubSignatureIsWhatValidatePayloadAccepts(t *testing.T) {
	payload := []byte(`{"action":"created"}`)
	req := httptest.NewRequest("POST", "/github/webhook", bytes.NewReader(payload))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(github.SHA256SignatureHeader, testkit.GitHubSignature("s3cret", payload))

	got, err := github.ValidatePayload(req, []byte("s3cret"))

	require.NoError(t, err)
	require.Equal(t, payload, got)
	req = httptest.NewRequest("POST", "/github/webhook", bytes.NewReader(payload))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(github.SHA256SignatureHeader, testkit.GitHubSignature("other", payload))
	_, err = github.ValidatePayload(req, []byte("s3cret"))
	require.Error(t, err)
}
