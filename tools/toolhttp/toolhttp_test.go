package toolhttp_test

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/agentrun/agentrun/api"

	"github.com/agentrun/agentrun/tools/toolhttp"
)

func TestRetryAfterIsReadInSecondsOrAsADateAndBounded(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	for value, want := range map[string]time.Duration{
		"":                              toolhttp.DefaultRetryAfter,
		"12":                            12 * time.Second,
		"0":                             time.Second,
		"-5":                            time.Second,
		"99999999999":                   toolhttp.MaxRetryAfter,
		"soon":                          toolhttp.DefaultRetryAfter,
		"Tue, 01 Dec 2026 12:01:30 GMT": 90 * time.Second,
		"Tue, 01 Dec 2026 11:00:00 GMT": time.Second,
		"Tue, 01 Dec 2099 12:00:00 GMT": toolhttp.MaxRetryAfter,
	} {
		h := http.Header{}
		if value != "" {
			h.Set("Retry-After", value)
		}
		assert.Equal(t, want, toolhttp.RetryAfter(h, now), "Retry-After %q", value)
	}
}

func TestRefusedIsEvery4xxButThoseThatProveNothing(t *testing.T) {
	for status, want := range map[int]bool{
		400: true, 401: true, 403: true, 404: true, 422: true,
		408: false, 409: false, 425: false, 429: false,
		200: false, 303: false, 500: false, 502: false, 503: false,
	} {
		assert.Equal(t, want, toolhttp.Refused(status), "%d", status)
	}
}

// service answers each request with the next of its answers.
func service(t *testing.T, status int, header http.Header, body string) (toolhttp.Client, *[]*http.Request) {
	t.Helper()
	var seen []*http.Request
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(strings.NewReader(string(b)))
		seen = append(seen, r)
		for k, v := range header {
			w.Header()[k] = v
		}
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return toolhttp.Client{BaseURL: srv.URL, MaxAnswer: 64, Header: http.Header{"Authorization": {"Bearer k"}}}, &seen
}

func TestDoSendsJSONAndDecodesA2xxAnswer(t *testing.T) {
	c, seen := service(t, http.StatusCreated, nil, `{"id":"M-1"}`)
	var out struct{ ID string }

	err := c.Do(t.Context(), http.MethodPost, "/messages", map[string]string{"text": "hi"}, &out)

	require.NoError(t, err)
	assert.Equal(t, "M-1", out.ID)
	req := (*seen)[0]
	assert.Equal(t, "/messages", req.URL.Path)
	assert.Equal(t, "application/json", req.Header.Get("Content-Type"))
	assert.Equal(t, "Bearer k", req.Header.Get("Authorization"))
	body, _ := io.ReadAll(req.Body)
	assert.JSONEq(t, `{"text":"hi"}`, string(body))
}

// A redirect of a create is not followed: following it sends the create
// again, a second effect on a service with no key. The 3xx is an unknown
// outcome, which the run reconciles; a read still follows its redirect.
func TestDoFollowsTheRedirectOfAReadOnly(t *testing.T) {
	posts := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/moved":
			_, _ = io.WriteString(w, `{"id":"M-1"}`)
		case r.Method == http.MethodPost:
			posts++
			http.Redirect(w, r, r.URL.Path, http.StatusTemporaryRedirect)
		default:
			http.Redirect(w, r, "/moved", http.StatusFound)
		}
	}))
	t.Cleanup(srv.Close)
	c := toolhttp.Client{BaseURL: srv.URL, HTTP: srv.Client()}
	var out struct{ ID string }

	err := c.Do(t.Context(), http.MethodPost, "/messages", map[string]string{"text": "hi"}, &out)

	var status *toolhttp.StatusError
	require.ErrorAs(t, err, &status)
	assert.Equal(t, http.StatusTemporaryRedirect, status.Status)
	assert.Equal(t, 1, posts)
	assert.Equal(t, err, toolhttp.Classify("send", err), "a redirect is an unknown outcome, no refusal")
	require.NoError(t, c.Do(t.Context(), http.MethodGet, "/messages", nil, &out))
	assert.Equal(t, "M-1", out.ID)
}

func TestDoRefusesAnAnswerOverItsBoundAndOneThatIsNotJSON(t *testing.T) {
	c, _ := service(t, http.StatusOK, nil, `{"id":"`+strings.Repeat("x", 100)+`"}`)
	var out struct{ ID string }
	require.ErrorContains(t, c.Do(t.Context(), http.MethodGet, "/m", nil, &out), "over 64 bytes")

	c, _ = service(t, http.StatusOK, nil, `<html>`)
	require.ErrorContains(t, c.Do(t.Context(), http.MethodGet, "/m", nil, &out), "read the answer")
}

func TestClassifyRejectsOnlyARefusalAndRateLimitsA429(t *testing.T) {
	for status, wantType := range map[int]string{
		http.StatusBadRequest: api.ErrTypeToolRejected, http.StatusForbidden: api.ErrTypeToolRejected,
		http.StatusTooManyRequests: api.ErrTypeRateLimited,
		http.StatusConflict:        "", http.StatusInternalServerError: "", http.StatusBadGateway: "",
	} {
		c, _ := service(t, status, http.Header{"Retry-After": {"7"}}, `{"error":"no"}`)
		err := toolhttp.Classify("send", c.Do(t.Context(), http.MethodPost, "/m", struct{}{}, nil))

		var appErr *temporal.ApplicationError
		if wantType == "" {
			assert.False(t, errors.As(err, &appErr), "%d leaves the outcome unknown: %v", status, err)
			continue
		}
		require.True(t, errors.As(err, &appErr), "%d", status)
		assert.Equal(t, wantType, appErr.Type(), "%d", status)
		assert.Contains(t, err.Error(), `{"error":"no"}`, "the service's words are kept")
	}
	noAnswer := toolhttp.Client{BaseURL: "http://127.0.0.1:1"}
	err := toolhttp.Classify("send", noAnswer.Do(t.Context(), http.MethodPost, "/m", struct{}{}, nil))
	var appErr *temporal.ApplicationError
	assert.False(t, errors.As(err, &appErr), "no answer is an unknown outcome: %v", err)
}

func TestCannotTellAnswersARefusedLookAndNeverNotCreated(t *testing.T) {
	c, _ := service(t, http.StatusForbidden, nil, "")
	rec, err := toolhttp.CannotTell("find", c.Do(t.Context(), http.MethodGet, "/m", nil, nil))
	require.NoError(t, err)
	assert.Equal(t, api.ReconcileCannotTell, rec.Outcome)
	assert.Contains(t, rec.Reason, "403")

	c, _ = service(t, http.StatusServiceUnavailable, nil, "")
	rec, err = toolhttp.CannotTell("find", c.Do(t.Context(), http.MethodGet, "/m", nil, nil))
	require.Error(t, err, "a 503 is tried again")
	assert.Empty(t, rec.Outcome)
}
