package approvalsrv

import (
	"crypto/hmac"
	"crypto/sha1"
	"encoding/hex"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

// GitHub still sends the SHA-1 signature beside the SHA-256 one. A delivery
// that carries only a correct SHA-1 signature is refused all the same: SHA-1
// is not the bar this server sets for a decision.
func TestWebhookSignedOnlyWithACorrectSHA1IsRefused(t *testing.T) {
	h := waitingHarness(t, sandboxPermissions(t), "alice")
	payload := newComment("alice", "/agentrun approve act-1").payload(t)
	mac := hmac.New(sha1.New, []byte(webhookSecret))
	mac.Write(payload)

	resp := h.post("/github/webhook", payload, map[string]string{
		"Content-Type": "application/json", "X-GitHub-Event": "issue_comment", "X-GitHub-Delivery": "d-1",
		"X-Hub-Signature": "sha1=" + hex.EncodeToString(mac.Sum(nil)),
	})

	require.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	require.Equal(t, "missing X-Hub-Signature-256", replyOf(t, resp)["error"])
	require.Empty(t, h.runs.approvalSignals())
}
