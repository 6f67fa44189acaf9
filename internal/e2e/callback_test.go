package e2e

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
)

const callbackSecret = "e2e-callback-secret-of-at-least-32-bytes"

// resultReceiver is the system that asked for a run: it keeps one result
// per Idempotency-Key, as a receiver should, and loses its answer to the
// first arrival after keeping it (the connection closes unanswered).
type resultReceiver struct {
	mu       sync.Mutex
	arrivals []string // each arrival's Idempotency-Key, in order
	unsigned int      // arrivals whose signature did not verify
	kept     map[string]api.CallbackResult
}

func (rr *resultReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil {
		http.Error(w, "unreadable", http.StatusBadRequest)
		return
	}
	key := r.Header.Get(api.HeaderIdempotencyKey)
	rr.mu.Lock()
	defer rr.mu.Unlock()
	rr.arrivals = append(rr.arrivals, key)
	// The receiver holds the key of its own origin (api.CallbackKey), never
	// the worker's secret.
	receiverKey, err := api.CallbackKey([]byte(callbackSecret), "http://"+r.Host)
	if err != nil || api.VerifySignature(receiverKey, r, body, time.Now()) != nil {
		rr.unsigned++
		http.Error(w, "bad signature", http.StatusUnauthorized)
		return
	}
	if _, held := rr.kept[key]; !held {
		var res api.CallbackResult
		if err := json.Unmarshal(body, &res); err != nil {
			http.Error(w, "not a result", http.StatusBadRequest)
			return
		}
		rr.kept[key] = res
	}
	if len(rr.arrivals) == 1 {
		if conn, _, err := w.(http.Hijacker).Hijack(); err == nil {
			conn.Close()
		}
		return
	}
	w.WriteHeader(http.StatusOK)
}

func (rr *resultReceiver) seen() (arrivals []string, unsigned int, kept map[string]api.CallbackResult) {
	rr.mu.Lock()
	defer rr.mu.Unlock()
	kept = map[string]api.CallbackResult{}
	for k, v := range rr.kept {
		kept[k] = v
	}
	return append([]string(nil), rr.arrivals...), rr.unsigned, kept
}

// TestARunStartedWithACallbackDeliversItsOutcomeOnceToAReceiverThatLosesTheFirstAnswer
// runs the real worker and starter on a dev server: a review started with
// --callback is approved, posts its one comment and completes; the receiver
// keeps the signed result and drops the connection, the run sends it again
// under the same key, and the receiver holds exactly one result, under
// "<run id>:result", with the run's outcome.
func TestARunStartedWithACallbackDeliversItsOutcomeOnceToAReceiverThatLosesTheFirstAnswer(t *testing.T) {
	s := newStack(t)
	rr := &resultReceiver{kept: map[string]api.CallbackResult{}}
	receiver := httptest.NewServer(rr)
	t.Cleanup(receiver.Close)
	allowed := receiver.URL + "/hooks/"

	worker := StartProcess(t, ProcessSpec{Name: "worker-callback", Binary: s.Bins.Worker, Env: map[string]string{
		"TEMPORAL_ADDRESS":         s.Server.Address(),
		"AGENT_TASK_QUEUE":         s.Queue,
		"GITHUB_API_URL":           s.Sandbox.APIURL(),
		"GITHUB_TOKEN":             "e2e-token",
		"MODEL_PROVIDER":           "offline",
		api.EnvCallbackAllowed:     allowed,
		"AGENTRUN_CALLBACK_SECRET": callbackSecret,
	}})
	WaitUntilPolling(t, s.Client(), s.Queue, worker)

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	env := s.StarterEnv()
	env[api.EnvCallbackAllowed] = allowed
	started, err := RunCommand(ctx, s.Bins.Starter, env, "start", "--repo", PullRepo, "--pr", strconv.Itoa(PullNum),
		"--callback", allowed+"agentrun", "--json")
	require.NoError(t, err)
	require.Equal(t, 0, started.ExitCode, started.Stderr)
	var run struct {
		RunID string `json:"runId"`
	}
	require.NoError(t, json.Unmarshal([]byte(started.Stdout), &run), started.Stdout)

	WaitAndApprove(t, s.Client(), run.RunID, runTimeout)
	res := WaitForResult(t, s.Client(), run.RunID, runTimeout)
	require.Equal(t, api.RunCompleted, res.Status)
	require.Len(t, s.Sandbox.PostedComments(t)[run.RunID], 1)

	snap, err := Snapshot(ctx, s.Client(), run.RunID)
	require.NoError(t, err)
	var deliver *api.AgentStep
	for i := range snap.Steps {
		if snap.Steps[i].ToolName == api.ToolDeliverResult {
			deliver = &snap.Steps[i]
		}
	}
	require.NotNil(t, deliver, Describe(snap))
	require.Equal(t, api.StepSucceeded, deliver.Status)
	require.Equal(t, 2, deliver.Attempt, "the first answer was lost, the second attempt was answered")

	arrivals, unsigned, kept := rr.seen()
	key := api.CallbackIdempotencyKey(run.RunID)
	require.Equal(t, []string{key, key}, arrivals, "sent again under the same key")
	require.Zero(t, unsigned, "every arrival verifies with the worker's secret")
	require.Len(t, kept, 1, "the receiver holds one result")
	got, ok := kept[key]
	require.True(t, ok, "the result is under <run id>:result: %v", kept)
	require.Equal(t, run.RunID, got.RunID)
	require.Equal(t, api.RunCompleted, got.Status)
	require.NotNil(t, got.Outcome)
	require.Len(t, got.Outcome.Posted, 1, "the result carries the run's outcome")
}
