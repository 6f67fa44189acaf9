package payloadcodec_test

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/converter"

	"github.com/agentrun/agentrun/internal/payloadcodec"
)

func mustParse(t *testing.T, list string) *payloadcodec.Codec {
	t.Helper()
	c, err := payloadcodec.Parse(list)
	require.NoError(t, err)
	require.NotNil(t, c)
	return c
}

func jsonPayload(t *testing.T, v any) *commonpb.Payload {
	t.Helper()
	p, err := converter.GetDefaultDataConverter().ToPayload(v)
	require.NoError(t, err)
	return p
}

func TestEncodedPayloadHidesTheValueAndNamesTheKey(t *testing.T) {
	c := mustParse(t, payloadcodec.NewKeyEntry("k1"))
	plain := jsonPayload(t, "Cache widgets in memory")

	enc, err := c.Encode([]*commonpb.Payload{plain})
	require.NoError(t, err)

	require.NotContains(t, string(enc[0].Data), "Cache widgets")
	require.Equal(t, "binary/encrypted", string(enc[0].Metadata["encoding"]))
	require.Equal(t, "k1", string(enc[0].Metadata["encryption-key-id"]))
	dec, err := c.Decode(enc)
	require.NoError(t, err)
	require.Equal(t, plain.Data, dec[0].Data)
	require.Equal(t, plain.Metadata, dec[0].Metadata)
}

func TestRotatedRingDecryptsWhatTheOldKeyEncryptedAndEncryptsWithTheNewOne(t *testing.T) {
	old := payloadcodec.NewKeyEntry("2026-01")
	before := mustParse(t, old)
	enc, err := before.Encode([]*commonpb.Payload{jsonPayload(t, "diff text")})
	require.NoError(t, err)

	after := mustParse(t, payloadcodec.NewKeyEntry("2026-02")+","+old)

	dec, err := after.Decode(enc)
	require.NoError(t, err)
	var s string
	require.NoError(t, converter.GetDefaultDataConverter().FromPayload(dec[0], &s))
	require.Equal(t, "diff text", s)
	reenc, err := after.Encode(dec)
	require.NoError(t, err)
	require.Equal(t, "2026-02", string(reenc[0].Metadata["encryption-key-id"]))
	require.Equal(t, []string{"2026-02", "2026-01"}, after.KeyIDs())
}

func TestDecodeWithoutTheKeyFailsNamingIt(t *testing.T) {
	enc, err := mustParse(t, payloadcodec.NewKeyEntry("gone")).Encode([]*commonpb.Payload{jsonPayload(t, 1)})
	require.NoError(t, err)

	_, err = mustParse(t, payloadcodec.NewKeyEntry("other")).Decode(enc)

	require.ErrorIs(t, err, payloadcodec.ErrUnknownKey)
	require.Contains(t, err.Error(), `"gone"`)
}

func TestRelabelledPayloadDoesNotOpen(t *testing.T) {
	k := strings.SplitN(payloadcodec.NewKeyEntry("a"), ":", 2)[1]
	c := mustParse(t, "a:"+k+",b:"+k)
	enc, err := c.Encode([]*commonpb.Payload{jsonPayload(t, "x")})
	require.NoError(t, err)
	enc[0].Metadata["encryption-key-id"] = []byte("b")

	_, err = c.Decode(enc)

	require.Error(t, err, "the key ID is authenticated")
}

func TestDecodePassesPlainPayloadsThrough(t *testing.T) {
	plain := jsonPayload(t, "from before encryption")
	dec, err := mustParse(t, payloadcodec.NewKeyEntry("k")).Decode([]*commonpb.Payload{plain})
	require.NoError(t, err)
	require.Same(t, plain, dec[0])
}

func TestParseEmptyMeansNoEncryption(t *testing.T) {
	c, err := payloadcodec.Parse("  ")
	require.NoError(t, err)
	require.Nil(t, c)
}

func TestParseRejectsBadEntriesWithoutEchoingKeys(t *testing.T) {
	short := base64.StdEncoding.EncodeToString([]byte("sixteen-byte-key"))
	good := payloadcodec.NewKeyEntry("k1")
	cases := map[string]string{
		"no colon":     "k1",
		"bad id":       "k 1:" + strings.SplitN(good, ":", 2)[1],
		"not base64":   "k1:!!!not-base64!!!",
		"short key":    "k1:" + short,
		"duplicate id": good + "," + good,
		"empty entry":  good + ",",
	}
	for name, list := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := payloadcodec.Parse(list)
			require.Error(t, err)
			require.NotContains(t, err.Error(), short)
			require.NotContains(t, err.Error(), strings.SplitN(good, ":", 2)[1])
		})
	}
}
