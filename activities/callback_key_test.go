package activities

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"

	"github.com/agentrun/agentrun/api"
)

// keyedReceiver keeps what arrives and whether it verified with the key
// its operator gave it: the key of its own origin.
type keyedReceiver struct {
	srv *httptest.Server
	key []byte

	mu       sync.Mutex
	verified []bool
}

func newKeyedReceiver(t *testing.T, secret []byte) *keyedReceiver {
	t.Helper()
	kr := &keyedReceiver{}
	kr.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		ok := api.VerifySignature(kr.key, r, body, time.Now()) == nil
		kr.mu.Lock()
		kr.verified = append(kr.verified, ok)
		kr.mu.Unlock()
		if !ok {
			http.Error(w, "bad signature", http.StatusUnauthorized)
			return
		}
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(kr.srv.Close)
	var err error
	kr.key, err = api.CallbackKey(secret, kr.srv.URL)
	require.NoError(t, err)
	return kr
}

func (kr *keyedReceiver) arrivals() []bool {
	kr.mu.Lock()
	defer kr.mu.Unlock()
	return append([]bool(nil), kr.verified...)
}

// A receiver of results, holding the key it checks its own deliveries
// with, cannot forge a result to another receiver: each key is its
// origin's, and the worker's secret never leaves the worker.
func TestAReceiverCannotForgeAResultToAnotherReceiver(t *testing.T) {
	secret := []byte("callback-secret-of-at-least-32-bytes!")
	honest, mallory := newKeyedReceiver(t, secret), newKeyedReceiver(t, secret)
	allowed, err := api.ParseCallbackAllowList(honest.srv.URL + "/," + mallory.srv.URL + "/")
	require.NoError(t, err)
	acts := &Activities{Callbacks: Callbacks{Allowed: allowed, Secret: secret}}
	env := (&testsuite.WorkflowTestSuite{}).NewTestActivityEnvironment()
	env.RegisterActivity(acts)

	_, err = env.ExecuteActivity(acts.DeliverResult, api.CallbackDelivery{RunID: "run-1", URL: honest.srv.URL + "/hooks", Body: []byte(`{"runId":"run-1","status":"completed"}`)})
	require.NoError(t, err, "the worker's delivery verifies with the receiver's own key")
	require.Equal(t, []bool{true}, honest.arrivals())

	forged := []byte(`{"runId":"run-1","status":"failed","error":"forged"}`)
	req, err := http.NewRequest(http.MethodPost, honest.srv.URL+"/hooks", bytes.NewReader(forged))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(api.HeaderIdempotencyKey, api.CallbackIdempotencyKey("run-1"))
	api.SignRequest(req, mallory.key, forged, time.Now())
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()

	require.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	require.Equal(t, []bool{true, false}, honest.arrivals(), "signed with mallory's key, the forged result does not verify")
	require.NotEqual(t, honest.key, mallory.key)
}
