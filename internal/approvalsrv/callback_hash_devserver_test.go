package approvalsrv

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/testkit"
	"github.com/agentrun/agentrun/runclient"
)

// A repeat of a start under its Idempotency-Key that names another
// callbackUrl is refused (422, saying the key was used for another
// request), never answered 202 with the first run while its callback is
// dropped; the same callback again is the same run.
func TestARepeatedStartWithAnotherCallbackIsAConflictNotTheFirstRun(t *testing.T) {
	h, runs := stubHarness(t, "approvalsrv-callback-hash")
	allowed, err := api.ParseCallbackAllowList("https://hooks.example.com/agentrun/")
	require.NoError(t, err)
	h.server.cfg.CallbackAllowed = allowed
	body := func(url string) []byte {
		return []byte(strings.Replace(startBody, `{`, `{"callbackUrl":"`+url+`",`, 1))
	}

	first := h.start("order-9", body("https://hooks.example.com/agentrun/orders/9"))
	require.Equal(t, http.StatusAccepted, first.StatusCode)
	runID := replyOf(t, first)["runId"]
	other := h.start("order-9", body("https://hooks.example.com/agentrun/orders/10"))
	require.Equal(t, http.StatusUnprocessableEntity, other.StatusCode)
	refusal := replyOf(t, other)["error"]
	require.Equal(t, runclient.ErrIdempotencyConflict.Error(), refusal)
	require.Contains(t, refusal, "callback", "the refusal says what may differ")
	again := h.start("order-9", body("https://hooks.example.com/agentrun/orders/9"))
	require.Equal(t, http.StatusAccepted, again.StatusCode)
	require.Equal(t, runID, replyOf(t, again)["runId"])
	require.Equal(t, 1, testkit.Executions(t, runs, runID))
}
