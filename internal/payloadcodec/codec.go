// Package payloadcodec encrypts every payload agentrun hands to Temporal
// (workflow inputs and results, activity arguments, queries, signals,
// failures) with AES-256-GCM, so that the history on the server holds no pull
// request text, diff or comment preview in the clear. It also serves the
// remote-codec HTTP protocol, so that the Temporal Web UI and the CLI
// (`--codec-endpoint`) can show the decrypted values to people allowed to see
// them.
package payloadcodec

import (
	"crypto/cipher"
	"crypto/rand"
	"errors"
	"fmt"

	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/converter"
	"google.golang.org/protobuf/proto"
)

// Metadata of an encrypted payload. The encoding tells every reader (a
// decoder, the UI) that the data is not JSON; the key ID picks the key to
// decrypt with, so that keys can rotate while old histories stay readable.
const (
	EncodingEncrypted = "binary/encrypted"
	MetadataKeyID     = "encryption-key-id"
)

// Codec is a converter.PayloadCodec over a key ring: the first key encrypts,
// any key decrypts. It is safe for concurrent use.
type Codec struct {
	keys []key // keys[0] encrypts
	byID map[string]cipher.AEAD
}

var _ converter.PayloadCodec = (*Codec)(nil)

// EncryptingKeyID is the ID of the key new payloads are encrypted with.
func (c *Codec) EncryptingKeyID() string { return c.keys[0].id }

// KeyIDs lists every key ID, the encrypting one first.
func (c *Codec) KeyIDs() []string {
	ids := make([]string, len(c.keys))
	for i, k := range c.keys {
		ids[i] = k.id
	}
	return ids
}

// Encode encrypts each payload whole (its metadata too, which names the
// Go type's encoding) with the first key.
func (c *Codec) Encode(payloads []*commonpb.Payload) ([]*commonpb.Payload, error) {
	k := c.keys[0]
	out := make([]*commonpb.Payload, len(payloads))
	for i, p := range payloads {
		plain, err := proto.Marshal(p)
		if err != nil {
			return payloads, fmt.Errorf("marshal payload %d: %w", i, err)
		}
		nonce := make([]byte, k.aead.NonceSize(), k.aead.NonceSize()+len(plain)+k.aead.Overhead())
		if _, err := rand.Read(nonce); err != nil {
			return payloads, fmt.Errorf("nonce for payload %d: %w", i, err)
		}
		// The key ID is authenticated data: a payload relabelled with another
		// key's ID fails to open instead of decrypting under the wrong name.
		sealed := k.aead.Seal(nonce, nonce, plain, []byte(k.id))
		out[i] = &commonpb.Payload{
			Metadata: map[string][]byte{
				converter.MetadataEncoding: []byte(EncodingEncrypted),
				MetadataKeyID:              []byte(k.id),
			},
			Data: sealed,
		}
	}
	return out, nil
}

// Decode decrypts the payloads this codec encrypted and passes any other
// through unchanged: runs started before encryption was switched on stay
// readable.
func (c *Codec) Decode(payloads []*commonpb.Payload) ([]*commonpb.Payload, error) {
	out := make([]*commonpb.Payload, len(payloads))
	for i, p := range payloads {
		if string(p.GetMetadata()[converter.MetadataEncoding]) != EncodingEncrypted {
			out[i] = p
			continue
		}
		plain, err := c.open(p)
		if err != nil {
			return payloads, fmt.Errorf("decrypt payload %d: %w", i, err)
		}
		out[i] = plain
	}
	return out, nil
}

// ErrUnknownKey is a payload encrypted with a key the ring does not hold:
// a key dropped from AGENTRUN_PAYLOAD_KEYS while histories still use it.
var ErrUnknownKey = errors.New("unknown encryption key")

func (c *Codec) open(p *commonpb.Payload) (*commonpb.Payload, error) {
	id := string(p.GetMetadata()[MetadataKeyID])
	aead, ok := c.byID[id]
	if !ok {
		return nil, fmt.Errorf("key %q (keep it in AGENTRUN_PAYLOAD_KEYS until no history uses it): %w", id, ErrUnknownKey)
	}
	if len(p.Data) < aead.NonceSize() {
		return nil, fmt.Errorf("key %q: ciphertext of %d bytes is shorter than a nonce", id, len(p.Data))
	}
	nonce, sealed := p.Data[:aead.NonceSize()], p.Data[aead.NonceSize():]
	plain, err := aead.Open(nil, nonce, sealed, []byte(id))
	if err != nil {
		return nil, fmt.Errorf("key %q: %w", id, err)
	}
	var decoded commonpb.Payload
	if err := proto.Unmarshal(plain, &decoded); err != nil {
		return nil, fmt.Errorf("key %q: unmarshal the decrypted payload: %w", id, err)
	}
	return &decoded, nil
}
