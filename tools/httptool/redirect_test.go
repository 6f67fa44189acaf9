package httptool_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/tools/httptool"
)

func TestRedirectAfterTheEffectIsReconciledUnderTheSameKeyAndActsOnce(t *testing.T) {
	s := newKeyedServer(t, redirectAfterEffect)
	rec := reconcileUnknown(t, newTool(t, s))
	status, body, _ := decodeContent(t, rec.Output)
	assert.Equal(t, http.StatusCreated, status, "the repeat is answered with the first request's result")
	assert.Equal(t, "ord_1", body["id"])
	_, effects := s.counts()
	assert.Equal(t, 1, effects, "the order was placed exactly once")
	assert.Equal(t, []string{opKey, opKey}, s.sentKeys())
}

func TestSeeOtherAfterAPostIsDoneWithItsLocationAsTheResult(t *testing.T) {
	s := newKeyedServer(t, seeOther)
	out, err := newTool(t, s).Execute(context.Background(), callOf(orderArgs))
	require.NoError(t, err, "a 303 to a POST says the server did it")
	var c struct {
		Status   int    `json:"status"`
		Location string `json:"location"`
	}
	require.NoError(t, json.Unmarshal(out.Content, &c))
	assert.Equal(t, http.StatusSeeOther, c.Status)
	assert.Equal(t, s.URL+"/api/v1/orders/ord_1", c.Location, "Location, resolved against the request, not fetched")
	assert.Equal(t, s.URL+"/api/v1/orders/ord_1", out.URL)
	requests, effects := s.counts()
	assert.Equal(t, 1, requests, "the redirect was not followed")
	assert.Equal(t, 1, effects)
}

func TestRedirectOfAGetIsRefusedAndNotFollowed(t *testing.T) {
	for _, status := range []fault{redirect, seeOther} {
		s := newKeyedServer(t, status, status)
		assertRefused(t, newTool(t, s), callOf(`{"method":"GET","path":"/v1/orders/ord_1"}`), "a redirected GET")
		requests, _ := s.counts()
		assert.Equal(t, 2, requests, "one GET each, none followed")
	}
}

func TestAnAnswerLostOnAReusedConnectionIsUnknownAndTheRequestIsNotSentAgain(t *testing.T) {
	s := newKeyedServer(t, serve, loseAnswer)
	// One connection to the host, so that the second request is sent on the
	// first's: Go's transport sends a request again by itself only when a
	// reused connection closes before an answer.
	oneConn := &http.Client{Transport: &http.Transport{MaxConnsPerHost: 1}}
	tool := newTool(t, s, func(c *httptool.Config) { c.Client = oneConn })
	first := callOf(orderArgs)
	first.OperationKey = "run-7f3a:3"
	_, err := tool.Execute(context.Background(), first)
	require.NoError(t, err)

	_, err = tool.Execute(context.Background(), callOf(orderArgs))
	require.Error(t, err, "the server read the request, placed the order and closed the connection")
	assert.Empty(t, errType(err), "the outcome is unknown: %v", err)
	requests, effects := s.counts()
	assert.Equal(t, 2, requests, "the lost request was sent once; the run reconciles it")
	assert.Equal(t, 2, effects)
	assert.Equal(t, []string{"run-7f3a:3", opKey}, s.sentKeys())
}
