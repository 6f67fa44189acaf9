package merchantsandbox_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/internal/ghsandbox"
	"github.com/agentrun/agentrun/internal/merchantsandbox"
)

// served is the merchant service as the sandbox serves it: on the GitHub
// sandbox's port, behind its fault queue and request log.
func served(t *testing.T) (*ghsandbox.Server, *httptest.Server) {
	t.Helper()
	sb := ghsandbox.New(ghsandbox.DefaultFixture())
	srv := httptest.NewServer(sb)
	t.Cleanup(srv.Close)
	return sb, srv
}

func do(t *testing.T, srv *httptest.Server, method, path, key, body string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, srv.URL+path, strings.NewReader(body))
	require.NoError(t, err)
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	resp, err := srv.Client().Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, string(b)
}

func TestASaveUnderAKeyAlreadySavedAnswersTheFirstSaveAndSavesNothing(t *testing.T) {
	sb, srv := served(t)
	first, body := do(t, srv, http.MethodPost, "/recommendations", "run-1:7", `{"picks":["m01"]}`)
	require.Equal(t, http.StatusCreated, first.StatusCode, body)
	var saved merchantsandbox.SavedRecommendation
	require.NoError(t, json.Unmarshal([]byte(body), &saved))
	require.Equal(t, "rec-1", saved.ID)

	again, body := do(t, srv, http.MethodPost, "/recommendations", "run-1:7", `{"picks":["m02"]}`)
	require.Equal(t, http.StatusOK, again.StatusCode)
	require.Equal(t, "true", again.Header.Get("Idempotent-Replayed"))
	require.JSONEq(t, `{"id":"rec-1","idempotency_key":"run-1:7","body":{"picks":["m01"]}}`, body)

	other, _ := do(t, srv, http.MethodPost, "/recommendations", "run-2:7", `{}`)
	require.Equal(t, http.StatusCreated, other.StatusCode)
	recs := sb.Merchants().Recommendations()
	require.Len(t, recs, 2)
	require.Equal(t, []string{"run-1:7", "run-2:7"}, []string{recs[0].IdempotencyKey, recs[1].IdempotencyKey})

	_, listed := do(t, srv, http.MethodGet, "/recommendations", "", "")
	var all []merchantsandbox.SavedRecommendation
	require.NoError(t, json.Unmarshal([]byte(listed), &all))
	require.Equal(t, recs, all)
}

func TestASaveWithoutAKeyOrWithABodyThatIsNotJSONIsRefused(t *testing.T) {
	sb, srv := served(t)
	for _, tc := range []struct{ key, body string }{
		{"", `{}`},
		{strings.Repeat("k", 201), `{}`},
		{"run-1:7", `not json`},
		{"run-1:7", `{"big":"` + strings.Repeat("x", 64<<10) + `"}`},
	} {
		resp, body := do(t, srv, http.MethodPost, "/recommendations", tc.key, tc.body)
		require.Equal(t, http.StatusBadRequest, resp.StatusCode, body)
		require.Contains(t, body, `"message"`)
	}
	require.Empty(t, sb.Merchants().Recommendations())
}

func TestTheMerchantReadsAnswerFromTheFixture(t *testing.T) {
	_, srv := served(t)
	_, body := do(t, srv, http.MethodGet, "/merchants?city=Riverside", "", "")
	var hits []merchantsandbox.Merchant
	require.NoError(t, json.Unmarshal([]byte(body), &hits))
	require.Len(t, hits, 10)
	_, body = do(t, srv, http.MethodGet, "/merchants?city=elsewhere", "", "")
	require.JSONEq(t, `[]`, body)

	_, body = do(t, srv, http.MethodGet, "/merchants/details?ids=m02,%20m99,m06", "", "")
	require.JSONEq(t, `[{"id":"m02","category":"bistro","rating":4.4,"noise":"quiet"},{"id":"m06","category":"steakhouse","rating":4.8,"noise":"quiet"}]`, body)

	_, body = do(t, srv, http.MethodGet, "/coupons?ids=m01,m03", "", "")
	require.JSONEq(t, `[{"merchant_id":"m01","title":"20 off a set for two","discount":20}]`, body)
}

// The coupon service goes down the way a GitHub call does: a fault on its
// operation, in the one queue the sandbox keeps.
func TestAFaultOnAMerchantOperationTakesThatServiceDown(t *testing.T) {
	sb, srv := served(t)
	require.NoError(t, sb.AddFault(ghsandbox.Fault{Op: merchantsandbox.OpGetCoupons, Mode: ghsandbox.ModeStatus, Status: 503, Count: 1}))
	down, _ := do(t, srv, http.MethodGet, "/coupons?ids=m01", "", "")
	require.Equal(t, http.StatusServiceUnavailable, down.StatusCode)
	up, _ := do(t, srv, http.MethodGet, "/coupons?ids=m01", "", "")
	require.Equal(t, http.StatusOK, up.StatusCode)

	var ops []string
	for _, r := range sb.Requests() {
		ops = append(ops, r.Op)
	}
	require.Equal(t, []string{merchantsandbox.OpGetCoupons, merchantsandbox.OpGetCoupons}, ops)
}
