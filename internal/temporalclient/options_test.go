package temporalclient

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/converter"

	"github.com/agentrun/agentrun/internal/testkit/standalone"
)

func encryptedConfig(t *testing.T) Config {
	t.Helper()
	key := make([]byte, 32)
	_, err := rand.Read(key)
	require.NoError(t, err)
	cfg, err := ConfigFromEnv(standalone.Getenv(map[string]string{"AGENTRUN_PAYLOAD_KEYS": "k1:" + base64.StdEncoding.EncodeToString(key)}))
	require.NoError(t, err)
	return cfg
}

func TestWithKeysEveryPayloadOfTheClientIsEncrypted(t *testing.T) {
	opts := encryptedConfig(t).ClientOptions(nil)

	p, err := opts.DataConverter.ToPayload("Cache widgets in memory")

	require.NoError(t, err)
	require.Equal(t, "binary/encrypted", string(p.Metadata[converter.MetadataEncoding]))
	require.NotContains(t, string(p.Data), "Cache widgets")
	var back string
	require.NoError(t, opts.DataConverter.FromPayload(p, &back))
	require.Equal(t, "Cache widgets in memory", back)
}

func TestWithKeysAFailuresMessageIsEncryptedToo(t *testing.T) {
	opts := encryptedConfig(t).ClientOptions(nil)

	f := opts.FailureConverter.ErrorToFailure(errors.New("GitHub refused the comment on Cache widgets in memory"))

	require.NotContains(t, f.GetMessage(), "Cache widgets")
	require.NotNil(t, f.GetEncodedAttributes())
	require.NotContains(t, string(f.GetEncodedAttributes().GetData()), "Cache widgets")
	require.Contains(t, opts.FailureConverter.FailureToError(f).Error(), "Cache widgets in memory")
}

func TestWithoutKeysPayloadsAndFailuresStayPlain(t *testing.T) {
	cfg, err := ConfigFromEnv(standalone.Getenv(nil))
	require.NoError(t, err)
	opts := cfg.ClientOptions(nil)

	f := opts.FailureConverter.ErrorToFailure(errors.New("plain message"))

	require.Equal(t, "plain message", f.GetMessage())
	require.Same(t, converter.GetDefaultDataConverter(), opts.DataConverter)
}
