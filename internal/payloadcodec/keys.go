package payloadcodec

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"regexp"
	"strings"
)

// KeySize is AES-256's key length.
const KeySize = 32

// NewKeyEntry is an AGENTRUN_PAYLOAD_KEYS entry, `id:base64key`, for a fresh
// random key: what `openssl rand -base64 32` makes, for programs and tests
// that set up their own cluster.
func NewKeyEntry(id string) string {
	raw := make([]byte, KeySize)
	// crypto/rand.Read never fails (Go 1.24+).
	_, _ = rand.Read(raw)
	return id + ":" + base64.StdEncoding.EncodeToString(raw)
}

type key struct {
	id   string
	aead cipher.AEAD
}

// keyIDPattern keeps IDs printable and short: they are stored in every
// payload's metadata and shown by the UI.
var keyIDPattern = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)

// Parse reads a key list, `id:base64key` entries separated by commas, each
// key 32 bytes (`openssl rand -base64 32`). An empty list means no
// encryption: Parse returns nil. Errors name the entry and never echo key
// material.
func Parse(list string) (*Codec, error) {
	if strings.TrimSpace(list) == "" {
		return nil, nil
	}
	c := &Codec{byID: map[string]cipher.AEAD{}}
	for i, entry := range strings.Split(list, ",") {
		k, err := parseKey(strings.TrimSpace(entry))
		if err != nil {
			return nil, fmt.Errorf("entry %d: %w", i+1, err)
		}
		if _, dup := c.byID[k.id]; dup {
			return nil, fmt.Errorf("entry %d: key ID %q is listed twice", i+1, k.id)
		}
		c.keys = append(c.keys, k)
		c.byID[k.id] = k.aead
	}
	return c, nil
}

func parseKey(entry string) (key, error) {
	id, encoded, ok := strings.Cut(entry, ":")
	if !ok {
		return key{}, fmt.Errorf("want id:base64key, got no colon")
	}
	if !keyIDPattern.MatchString(id) {
		return key{}, fmt.Errorf("key ID %q: want 1 to 64 of A-Z a-z 0-9 . _ -", id)
	}
	raw, err := decodeBase64(encoded)
	if err != nil {
		return key{}, fmt.Errorf("key %q is not base64: %w", id, err)
	}
	if len(raw) != KeySize {
		return key{}, fmt.Errorf("key %q is %d bytes, want %d (openssl rand -base64 32)", id, len(raw), KeySize)
	}
	block, err := aes.NewCipher(raw)
	if err != nil {
		return key{}, fmt.Errorf("key %q: %w", id, err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return key{}, fmt.Errorf("key %q: %w", id, err)
	}
	return key{id: id, aead: aead}, nil
}

// decodeBase64 takes standard or URL-safe base64, padded or not: keys are
// pasted from several tools.
func decodeBase64(s string) ([]byte, error) {
	var firstErr error
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		b, err := enc.DecodeString(s)
		if err == nil {
			return b, nil
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	return nil, firstErr
}
