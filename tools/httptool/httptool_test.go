package httptool_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/agentrun/agentrun/api"

	"github.com/agentrun/agentrun/internal/testkit/standalone"
	"github.com/agentrun/agentrun/tools"
	"github.com/agentrun/agentrun/tools/httptool"
)

const opKey = "run-7f3a:4"

// newTool is an http_request tool for s, under /api, that may POST (and GET)
// below /v1/orders.
func newTool(t *testing.T, s *keyedServer, edit ...func(*httptool.Config)) tools.Action {
	t.Helper()
	cfg := httptool.Config{
		BaseURL:        s.URL + "/api",
		AllowedMethods: []string{"POST", "GET"},
		AllowedPaths:   []string{"/v1/orders"},
		Header:         http.Header{"Authorization": {"Bearer " + secretToken}},
	}
	for _, e := range edit {
		e(&cfg)
	}
	tool, err := httptool.New(cfg)
	require.NoError(t, err)
	return tool
}

func callOf(args string) tools.Call {
	return tools.Call{Args: json.RawMessage(args), OperationKey: opKey}
}

const orderArgs = `{"path": "/v1/orders", "method": "POST", "query": {"currency": "eur"},
	"body": {"item": "book <2nd ed>", "amount": 12.50, "gift": false}}`

// decodeContent reads the Content an Execute or a found Reconcile returned.
func decodeContent(t *testing.T, out api.ToolOutput) (status int, body map[string]any, truncated string) {
	t.Helper()
	var c struct {
		Status    int             `json:"status"`
		Body      json.RawMessage `json:"body"`
		Truncated string          `json:"truncated"`
	}
	require.NoError(t, json.Unmarshal(out.Content, &c))
	_ = json.Unmarshal(c.Body, &body)
	return c.Status, body, c.Truncated
}

// errType is the error's application type: "" for a plain error, which the
// run treats as an unknown outcome.
func errType(err error) string {
	var appErr *temporal.ApplicationError
	if errors.As(err, &appErr) {
		return appErr.Type()
	}
	return ""
}

// reconcileUnknown runs the order once, whose outcome must then be unknown
// (neither a refusal nor a rate limit), and reconciles it: found, since the
// server keeps the first answer under the key.
func reconcileUnknown(t *testing.T, tool tools.Action) api.ToolReconciliation {
	t.Helper()
	_, err := tool.Execute(context.Background(), callOf(orderArgs))
	require.Error(t, err)
	assert.Empty(t, errType(err), "the outcome is unknown, neither a refusal nor a rate limit: %v", err)

	rec, err := tool.Reconcile(context.Background(), callOf(orderArgs))
	require.NoError(t, err)
	assert.Equal(t, api.ReconcileFound, rec.Outcome)
	return rec
}

// assertRefused checks that tool refuses call in an attempt (tools.Rejected)
// and in a reconciliation (cannot_tell); what names the call in failures.
func assertRefused(t *testing.T, tool tools.Action, call tools.Call, what string) {
	t.Helper()
	_, err := tool.Execute(context.Background(), call)
	assert.Equal(t, api.ErrTypeToolRejected, errType(err), "Execute: %s: %v", what, err)
	rec, err := tool.Reconcile(context.Background(), call)
	require.NoError(t, err)
	assert.Equal(t, api.ReconcileCannotTell, rec.Outcome, "Reconcile: %s", what)
}

func TestApprovedOrderIsPlacedOnceUnderItsOperationKey(t *testing.T) {
	s := newKeyedServer(t)
	tool := newTool(t, s)
	call := callOf(orderArgs)

	preview, err := tool.Preview(call)
	require.NoError(t, err)
	assert.Equal(t, "POST "+s.URL+"/api/v1/orders?currency=eur\n"+`{"amount":12.50,"gift":false,"item":"book <2nd ed>"}`, preview)
	touches, err := tool.Touches(call)
	require.NoError(t, err)
	host := strings.TrimPrefix(s.URL, "http://")
	assert.Equal(t, host+"/api/v1/orders", touches)

	call.Approved = preview
	out, err := tool.Execute(context.Background(), call)
	require.NoError(t, err)
	status, body, truncated := decodeContent(t, out)
	assert.Equal(t, http.StatusCreated, status)
	assert.Empty(t, truncated)
	assert.Equal(t, "ord_1", body["id"])
	assert.Equal(t, "/api/v1/orders", body["path"])
	assert.Equal(t, map[string]any{"amount": 12.5, "gift": false, "item": "book <2nd ed>"}, body["received"])
	assert.False(t, out.AlreadyExisted, "a first run is no replay")
	assert.Equal(t, s.URL+"/api/v1/orders/ord_1", out.URL, "Location, resolved against the request")

	_, effects := s.counts()
	assert.Equal(t, 1, effects)
	assert.Equal(t, []string{opKey}, s.sentKeys())
}

func TestLostAnswerIsReconciledByRepeatingUnderTheSameKey(t *testing.T) {
	s := newKeyedServer(t, loseAnswer)
	rec := reconcileUnknown(t, newTool(t, s))
	assert.True(t, rec.Output.AlreadyExisted, "the server replayed the first answer")
	status, body, _ := decodeContent(t, rec.Output)
	assert.Equal(t, http.StatusCreated, status)
	assert.Equal(t, "ord_1", body["id"], "the result is the first request's")

	requests, effects := s.counts()
	assert.Equal(t, 2, requests)
	assert.Equal(t, 1, effects, "the order was placed exactly once")
	assert.Equal(t, []string{opKey, opKey}, s.sentKeys())
}

func TestUnknownOutcomeIsRetriedUnderTheSameKeyAndActsOnce(t *testing.T) {
	for name, f := range map[string]fault{"503 before acting": fail503, "504 after acting": fail504AfterEffect, "409 in flight": inFlight} {
		t.Run(name, func(t *testing.T) {
			s := newKeyedServer(t, f)
			rec := reconcileUnknown(t, newTool(t, s))
			_, body, _ := decodeContent(t, rec.Output)
			assert.Equal(t, "ord_1", body["id"])
			_, effects := s.counts()
			assert.Equal(t, 1, effects)
			assert.Equal(t, []string{opKey, opKey}, s.sentKeys())
		})
	}
}

func TestKeyReusedWithAnotherBodyIsRejected(t *testing.T) {
	s := newKeyedServer(t)
	tool := newTool(t, s)
	_, err := tool.Execute(context.Background(), callOf(orderArgs))
	require.NoError(t, err)

	_, err = tool.Execute(context.Background(), callOf(`{"method":"POST","path":"/v1/orders","body":{"item":"pen"}}`))
	require.Error(t, err)
	assert.Equal(t, api.ErrTypeToolRejected, errType(err))
	assert.Contains(t, err.Error(), "422")
	assert.True(t, standalone.ApplicationError(t, err).NonRetryable())
	_, effects := s.counts()
	assert.Equal(t, 1, effects)
}

func TestRateLimitSaysHowLongToWait(t *testing.T) {
	s := newKeyedServer(t, rateLimit, rateLimit)
	tool := newTool(t, s)

	_, execErr := tool.Execute(context.Background(), callOf(orderArgs))
	_, recErr := tool.Reconcile(context.Background(), callOf(orderArgs))
	for _, err := range []error{execErr, recErr} {
		require.Error(t, err)
		assert.Equal(t, api.ErrTypeRateLimited, errType(err))
		var d api.RateLimitDetails
		require.NoError(t, standalone.ApplicationError(t, err).Details(&d))
		assert.Equal(t, int64(7), d.RetryAfterSeconds)
	}
	_, effects := s.counts()
	assert.Zero(t, effects)
}

func TestRedirectAfterAPostIsNotFollowedAndIsAnUnknownOutcome(t *testing.T) {
	s := newKeyedServer(t, redirect, redirect)
	// The caller's client follows redirects; the tool's copy of it must not.
	following := &http.Client{}
	tool := newTool(t, s, func(c *httptool.Config) { c.Client = following })

	_, err := tool.Execute(context.Background(), callOf(orderArgs))
	require.Error(t, err)
	assert.Empty(t, errType(err), "a redirect does not say the POST was not done: the run reconciles: %v", err)
	assert.Contains(t, err.Error(), "redirect")
	assert.NotContains(t, err.Error(), "elsewhere.example", "where it pointed is not followed, nor told")

	rec, err := tool.Reconcile(context.Background(), callOf(orderArgs))
	require.NoError(t, err)
	assert.Equal(t, api.ReconcileCannotTell, rec.Outcome, "a redirected repeat proves nothing about the first request")
	assert.Nil(t, following.CheckRedirect, "the caller's client keeps its own policy")
	requests, _ := s.counts()
	assert.Equal(t, 2, requests)
}

func TestCancelledRequestLeavesTheOutcomeUnknown(t *testing.T) {
	s := newHoldingServer(t)
	tool := newTool(t, s)

	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-s.arrived
		cancel()
	}()
	_, err := tool.Execute(ctx, callOf(orderArgs))
	require.Error(t, err)
	assert.Empty(t, errType(err), "a request cut off may have been done: %v", err)
	assert.ErrorIs(t, err, context.Canceled)
}

func TestLargeAnswerIsCutAndSaysSo(t *testing.T) {
	s := newKeyedServer(t)
	tool := newTool(t, s, func(c *httptool.Config) { c.MaxResponseBytes = 1000 })
	big, _ := json.Marshal(map[string]any{"method": "POST", "path": "/v1/orders", "body": map[string]any{"note": strings.Repeat("é", 3000)}})

	out, err := tool.Execute(context.Background(), callOf(string(big)))
	require.NoError(t, err)
	var c struct {
		Body      string `json:"body"`
		Truncated string `json:"truncated"`
	}
	require.NoError(t, json.Unmarshal(out.Content, &c), "a cut body is text, still valid JSON in Content")
	assert.Contains(t, c.Truncated, "longer than 1000 bytes")
	assert.LessOrEqual(t, len(c.Body), 1000)
	assert.NotContains(t, c.Body, "\uFFFD", "the cut falls between characters")
}

func TestStaticHeaderIsNeverShown(t *testing.T) {
	s := newKeyedServer(t)
	tool := newTool(t, s)
	spec, _ := json.Marshal(tool.Spec())
	preview, err := tool.Preview(callOf(orderArgs))
	require.NoError(t, err)
	out, err := tool.Execute(context.Background(), callOf(orderArgs))
	require.NoError(t, err)
	_, body, _ := decodeContent(t, out)
	assert.Equal(t, "[redacted]", body["echo"], "the server echoed the header; the model reads it scrubbed")

	// A server that refuses a wrong credential and quotes it back.
	const wrong = "sk-wrong-0123456789abcdef"
	refusing := newTool(t, s, func(c *httptool.Config) { c.Header = http.Header{"Authorization": {"Bearer " + wrong}} })
	_, execErr := refusing.Execute(context.Background(), callOf(orderArgs))
	require.Error(t, execErr)
	assert.Equal(t, api.ErrTypeToolRejected, errType(execErr))
	assert.Contains(t, execErr.Error(), "401")
	rec, err := refusing.Reconcile(context.Background(), callOf(orderArgs))
	require.NoError(t, err)
	assert.Equal(t, api.ReconcileCannotTell, rec.Outcome, "a refused repeat does not prove the first did not happen")

	for what, text := range map[string]string{
		"spec": string(spec), "preview": preview, "content": string(out.Content),
		"error": execErr.Error(), "reconcile reason": rec.Reason,
	} {
		for _, secret := range []string{secretToken, wrong} {
			assert.NotContains(t, text, secret, "%s shows a static header", what)
		}
	}
}

func TestConfigIsChecked(t *testing.T) {
	good := func() httptool.Config {
		return httptool.Config{BaseURL: "https://api.example.com/v2", AllowedPaths: []string{"/orders"}}
	}
	const secretValue = "tok\nen-value-1234"
	for name, edit := range map[string]func(*httptool.Config){
		"relative URL":        func(c *httptool.Config) { c.BaseURL = "/v2" },
		"no host":             func(c *httptool.Config) { c.BaseURL = "https:///v2" },
		"ftp":                 func(c *httptool.Config) { c.BaseURL = "ftp://api.example.com" },
		"userinfo":            func(c *httptool.Config) { c.BaseURL = "https://bot:pw@api.example.com" },
		"query":               func(c *httptool.Config) { c.BaseURL = "https://api.example.com/?k=1" },
		"fragment":            func(c *httptool.Config) { c.BaseURL = "https://api.example.com/#x" },
		"no paths":            func(c *httptool.Config) { c.AllowedPaths = nil },
		"relative prefix":     func(c *httptool.Config) { c.AllowedPaths = []string{"orders"} },
		"traversing prefix":   func(c *httptool.Config) { c.AllowedPaths = []string{"/orders/../admin"} },
		"unknown method":      func(c *httptool.Config) { c.AllowedMethods = []string{"TRACE"} },
		"lower case method":   func(c *httptool.Config) { c.AllowedMethods = []string{"post"} },
		"reserved header":     func(c *httptool.Config) { c.Header = http.Header{"Idempotency-Key": {"fixed"}} },
		"bad header name":     func(c *httptool.Config) { c.Header = http.Header{"X Bad": {"v"}} },
		"header line break":   func(c *httptool.Config) { c.Header = http.Header{"X-Token": {secretValue}} },
		"negative max answer": func(c *httptool.Config) { c.MaxResponseBytes = -1 },
	} {
		t.Run(name, func(t *testing.T) {
			cfg := good()
			edit(&cfg)
			_, err := httptool.New(cfg)
			require.Error(t, err)
			assert.NotContains(t, err.Error(), secretValue)
		})
	}
	tool, err := httptool.New(good())
	require.NoError(t, err)
	spec := tool.Spec()
	assert.Equal(t, httptool.DefaultName, spec.Name)
	assert.True(t, spec.SideEffect)
	assert.Contains(t, string(spec.Parameters), `"enum":["POST"]`, "POST is the default method")
}
