package testkit

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
)

// GitHubSignature is the X-Hub-Signature-256 value GitHub sends with a
// webhook delivery of payload; the approval server checks it with
// go-github's ValidatePayload. Tests that deliver as GitHub sign through it.
func GitHubSignature(secret string, payload []byte) string {
	h := hmac.New(sha256.New, []byte(secret))
	h.Write(payload)
	return "sha256=" + hex.EncodeToString(h.Sum(nil))
}
