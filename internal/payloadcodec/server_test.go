package payloadcodec_test

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/converter"

	"github.com/agentrun/agentrun/internal/payloadcodec"
	"github.com/agentrun/agentrun/internal/testkit/standalone"
)

const (
	testToken = "codec-token-0123456789abcdef0123456789"
	uiOrigin  = "https://temporal-ui.example.com"
)

func codecServer(t *testing.T, c *payloadcodec.Codec) *httptest.Server {
	t.Helper()
	cfg, err := payloadcodec.ServerConfigFromEnv(standalone.Getenv(map[string]string{
		"AGENTRUN_CODEC_TOKEN":        testToken,
		"AGENTRUN_CODEC_CORS_ORIGINS": uiOrigin + ", http://localhost:8233",
	}))
	require.NoError(t, err)
	mux := http.NewServeMux()
	mux.Handle("/codec/", payloadcodec.NewHandler(c, cfg, "default", slog.New(slog.NewTextHandler(io.Discard, nil))))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func post(t *testing.T, url string, headers map[string]string, payloads ...*commonpb.Payload) *http.Response {
	t.Helper()
	body, err := json.Marshal(&commonpb.Payloads{Payloads: payloads})
	require.NoError(t, err)
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	t.Cleanup(func() { _ = resp.Body.Close() })
	return resp
}

func TestCodecEndpointDecodesForTheRemoteCodecClient(t *testing.T) {
	c := mustParse(t, payloadcodec.NewKeyEntry("k1"))
	srv := codecServer(t, c)
	enc, err := c.Encode([]*commonpb.Payload{jsonPayload(t, "Cache widgets in memory")})
	require.NoError(t, err)
	// The SDK's own remote codec client speaks the protocol the UI and CLI do.
	remote := converter.NewRemotePayloadCodec(converter.RemotePayloadCodecOptions{
		Endpoint: srv.URL + "/codec",
		ModifyRequest: func(r *http.Request) error {
			r.Header.Set("Authorization", "Bearer "+testToken)
			r.Header.Set("X-Namespace", "default")
			return nil
		},
	})

	dec, err := remote.Decode(enc)

	require.NoError(t, err)
	require.Contains(t, string(dec[0].Data), "Cache widgets in memory")
	again, err := remote.Encode(dec)
	require.NoError(t, err)
	require.Equal(t, "k1", string(again[0].Metadata["encryption-key-id"]))
}

func TestCodecEndpointWithoutTheRightTokenAnswers401(t *testing.T) {
	c := mustParse(t, payloadcodec.NewKeyEntry("k1"))
	srv := codecServer(t, c)
	for name, auth := range map[string]string{
		"missing":     "",
		"wrong":       "Bearer " + strings.Repeat("x", len(testToken)),
		"prefix":      "Bearer " + testToken[:10],
		"not bearer":  "Basic " + testToken,
		"token alone": testToken,
	} {
		t.Run(name, func(t *testing.T) {
			resp := post(t, srv.URL+"/codec/decode", map[string]string{"Authorization": auth}, jsonPayload(t, 1))
			require.Equal(t, http.StatusUnauthorized, resp.StatusCode)
			require.Contains(t, resp.Header.Get("WWW-Authenticate"), "Bearer")
		})
	}
}

func TestCodecEndpointRefusesAnotherNamespace(t *testing.T) {
	srv := codecServer(t, mustParse(t, payloadcodec.NewKeyEntry("k1")))
	resp := post(t, srv.URL+"/codec/decode", map[string]string{"Authorization": "Bearer " + testToken, "X-Namespace": "payments"}, jsonPayload(t, 1))
	require.Equal(t, http.StatusForbidden, resp.StatusCode)
}

func preflight(t *testing.T, url, origin string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodOptions, url, nil)
	require.NoError(t, err)
	req.Header.Set("Origin", origin)
	req.Header.Set("Access-Control-Request-Method", "POST")
	req.Header.Set("Access-Control-Request-Headers", "authorization,content-type,x-namespace")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	t.Cleanup(func() { _ = resp.Body.Close() })
	return resp
}

func TestCodecPreflightFromAnAllowedOriginIsAnswered(t *testing.T) {
	srv := codecServer(t, mustParse(t, payloadcodec.NewKeyEntry("k1")))

	resp := preflight(t, srv.URL+"/codec/decode", uiOrigin)

	require.Equal(t, http.StatusNoContent, resp.StatusCode)
	require.Equal(t, uiOrigin, resp.Header.Get("Access-Control-Allow-Origin"))
	require.Equal(t, "true", resp.Header.Get("Access-Control-Allow-Credentials"))
	for _, h := range []string{"Authorization", "Content-Type", "X-Namespace"} {
		require.Contains(t, resp.Header.Get("Access-Control-Allow-Headers"), h)
	}
	// The real request from that origin carries the CORS header too.
	post := post(t, srv.URL+"/codec/decode", map[string]string{"Authorization": "Bearer " + testToken, "Origin": uiOrigin}, jsonPayload(t, 1))
	require.Equal(t, http.StatusOK, post.StatusCode)
	require.Equal(t, uiOrigin, post.Header.Get("Access-Control-Allow-Origin"))
}

func TestCodecPreflightFromAnotherOriginIsRefused(t *testing.T) {
	srv := codecServer(t, mustParse(t, payloadcodec.NewKeyEntry("k1")))

	resp := preflight(t, srv.URL+"/codec/decode", "https://evil.example.com")

	require.Equal(t, http.StatusForbidden, resp.StatusCode)
	require.Empty(t, resp.Header.Get("Access-Control-Allow-Origin"))
	post := post(t, srv.URL+"/codec/decode", map[string]string{"Authorization": "Bearer " + testToken, "Origin": "https://evil.example.com"}, jsonPayload(t, 1))
	require.Equal(t, http.StatusForbidden, post.StatusCode, "a token does not make another site's page an allowed caller")
}

func TestServerConfigRejectsBadValuesNamingTheVariable(t *testing.T) {
	cases := map[string]map[string]string{
		"AGENTRUN_CODEC_TOKEN":          {"AGENTRUN_CODEC_TOKEN": "short"},
		"AGENTRUN_CODEC_TOKEN ":         {"AGENTRUN_CODEC_TOKEN": testToken + "\n"},
		"AGENTRUN_CODEC_CORS_ORIGINS":   {"AGENTRUN_CODEC_TOKEN": testToken, "AGENTRUN_CODEC_CORS_ORIGINS": "*"},
		"AGENTRUN_CODEC_CORS_ORIGINS ":  {"AGENTRUN_CODEC_TOKEN": testToken, "AGENTRUN_CODEC_CORS_ORIGINS": "https://ui.example.com/path"},
		"AGENTRUN_CODEC_CORS_ORIGINS  ": {"AGENTRUN_CODEC_CORS_ORIGINS": uiOrigin},
	}
	for variable, env := range cases {
		t.Run(variable, func(t *testing.T) {
			_, err := payloadcodec.ServerConfigFromEnv(standalone.Getenv(env))
			require.Error(t, err)
			require.True(t, strings.HasPrefix(err.Error(), strings.TrimSpace(variable)+":"), err.Error())
		})
	}
}
