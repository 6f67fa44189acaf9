package approvalsrv

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
)

func callbackServer(t *testing.T, allowed string) *harness {
	t.Helper()
	h := newHarness(t, testConfig(), nil)
	list, err := api.ParseCallbackAllowList(allowed)
	require.NoError(t, err)
	h.server.cfg.CallbackAllowed = list
	return h
}

func TestStartWithAnAllowedCallbackCarriesItToTheRun(t *testing.T) {
	h := callbackServer(t, "https://hooks.example.com/agentrun/")

	resp := h.start("k-1", []byte(`{"repo":"acme/widgets","pullNumber":7,"userId":"carol",`+
		`"callbackUrl":"https://hooks.example.com/agentrun/orders/9","callbackDeadline":"2h"}`))

	require.Equal(t, http.StatusAccepted, resp.StatusCode)
	starts := h.runs.startRequests()
	require.Len(t, starts, 1)
	require.Equal(t, &api.Callback{URL: "https://hooks.example.com/agentrun/orders/9", Deadline: 2 * time.Hour}, starts[0].Input.Callback)
}

func TestStartWithACallbackOutsideTheAllowListIs400AndStartsNothing(t *testing.T) {
	h := callbackServer(t, "https://ok.example.com")
	for url, why := range map[string]string{
		"https://ok.example.com.evil.com/hook": "under none of the prefixes AGENTRUN_CALLBACK_ALLOWED allows",
		"https://ok.example.com@evil.com/hook": "user info",
		"http://ok.example.com/hook":           "under none of the prefixes",
		"https://ok.example.com/a/../../admin": "dot segments",
	} {
		resp := h.start("k-1", []byte(`{"repo":"acme/widgets","pullNumber":7,"userId":"carol","callbackUrl":"`+url+`"}`))

		require.Equal(t, http.StatusBadRequest, resp.StatusCode, url)
		msg := replyOf(t, resp)["error"]
		require.Contains(t, msg, "callbackUrl: callback URL refused", url)
		require.Contains(t, msg, why, url)
	}
	require.Empty(t, h.runs.startRequests())
}

func TestStartWithACallbackOnAServerThatAllowsNoneIs400NamingTheSetting(t *testing.T) {
	h := callbackServer(t, "")

	resp := h.start("k-1", []byte(`{"repo":"acme/widgets","pullNumber":7,"userId":"carol","callbackUrl":"https://hooks.example.com/x"}`))

	require.Equal(t, http.StatusBadRequest, resp.StatusCode)
	require.Contains(t, replyOf(t, resp)["error"], "AGENTRUN_CALLBACK_ALLOWED is empty")
	require.Empty(t, h.runs.startRequests())
}

func TestStartWithABadCallbackDeadlineIs400(t *testing.T) {
	h := callbackServer(t, "https://hooks.example.com/")
	for _, body := range []string{
		`{"repo":"acme/widgets","pullNumber":7,"userId":"carol","callbackUrl":"https://hooks.example.com/x","callbackDeadline":"forever"}`,
		`{"repo":"acme/widgets","pullNumber":7,"userId":"carol","callbackUrl":"https://hooks.example.com/x","callbackDeadline":"9000h"}`,
		`{"repo":"acme/widgets","pullNumber":7,"userId":"carol","callbackDeadline":"1h"}`,
	} {
		resp := h.start("k-1", []byte(body))
		require.Equal(t, http.StatusBadRequest, resp.StatusCode, body)
		require.Contains(t, replyOf(t, resp)["error"], "callbackDeadline", body)
	}
	require.Empty(t, h.runs.startRequests())
}
