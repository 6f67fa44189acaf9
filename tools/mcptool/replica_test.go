package mcptool_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/testkit"
	"github.com/agentrun/agentrun/tools"
	"github.com/agentrun/agentrun/tools/mcptool"
)

// replicas are two streamable-HTTP replicas of one MCP server (one store,
// sessions their own) behind one address, the way a blue/green deploy or a
// balancer without affinity puts them: every request goes to the replica
// the balancer names at that moment.
type replicas struct {
	url   string
	store *testkit.MCPStore
	// toGreen moves the balancer's new requests to the second replica;
	// requests already in flight stay where they are.
	toGreen atomic.Bool
}

func newReplicas(t *testing.T, afterAppend func(context.Context)) *replicas {
	rs := &replicas{store: testkit.NewMCPStore()}
	replica := func() http.Handler {
		s := testkit.NewMCPServer(testkit.MCPServerOptions{Die: func() {}, Store: rs.store, AfterAppend: afterAppend})
		return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
	}
	// Blue holds the session; green checks a session before it answers.
	blue, green := eagerStream(replica()), replica()
	ln := testkit.Listen(t)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if rs.toGreen.Load() {
			green.ServeHTTP(w, r)
			return
		}
		blue.ServeHTTP(w, r)
	})}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	rs.url = "http://" + ln.Addr().String() + "/mcp"
	return rs
}

// eagerStream opens a tool call's event stream at once, the way the
// TypeScript SDK's server does (the go-sdk's waits for its first event): the
// client's request is then sent and answered, and only the result is to come.
func eagerStream(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, "unreadable body", http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		var msg struct {
			Method string `json:"method"`
		}
		if json.Unmarshal(body, &msg) == nil && msg.Method == "tools/call" && r.Header.Get("Mcp-Session-Id") != "" {
			w.Header().Set("Content-Type", "text/event-stream")
			w.Header().Set("Cache-Control", "no-cache")
			w.WriteHeader(http.StatusOK)
			_ = http.NewResponseController(w).Flush()
		}
		next.ServeHTTP(w, r)
	})
}

func TestAnActionInFlightWhenAnotherCallsRequestMeetsAnotherReplicaRunsOnceAndIsUnknown(t *testing.T) {
	applied, release := make(chan struct{}), make(chan struct{})
	t.Cleanup(func() { close(release) })
	rs := newReplicas(t, func(ctx context.Context) {
		select {
		case applied <- struct{}{}:
		case <-ctx.Done():
			return
		}
		select { // the answer is held until the test is done, or the client gives up
		case <-release:
		case <-ctx.Done():
		}
	})
	_, byName := connect(t, mcptool.Server{Name: "kv", URL: rs.url})
	appendLine := action(t, byName["kv__append"])

	actionErr := make(chan error, 1)
	go func() {
		_, err := appendLine.Execute(callCtx(t), tools.Call{Args: json.RawMessage(`{"text":"charge 10"}`), OperationKey: "run-1:4"})
		actionErr <- err
	}()
	<-applied // blue has charged, and its answer is on the way

	rs.toGreen.Store(true)
	// Another run's read, on the same session: green knows no such session
	// and answers 404, and the go-sdk fails the whole session.
	// lookup fails the test unless the read, whose own request met the
	// 404, is made again on a new session.
	assert.Equal(t, 1, lookup(t, byName["kv__lookup"], "").Appended)

	err := <-actionErr
	require.ErrorIs(t, err, mcp.ErrSessionMissing, "the action's answer was lost with the session: its outcome is unknown")
	var appErr *temporal.ApplicationError
	if errors.As(err, &appErr) {
		assert.NotEqual(t, api.ErrTypeToolRejected, appErr.Type(), "not refused: the step reconciles")
	}
	assert.Equal(t, 1, rs.store.Appended(), "the action ran once across both replicas, never sent again")
}

func TestAnActionWhoseOwnRequestMeetsAnotherReplicaIsSentOnceOnANewSession(t *testing.T) {
	rs := newReplicas(t, nil)
	_, byName := connect(t, mcptool.Server{Name: "kv", URL: rs.url})

	rs.toGreen.Store(true) // the next request meets a replica that knows no session
	_, err := action(t, byName["kv__append"]).Execute(callCtx(t), tools.Call{Args: json.RawMessage(`{"text":"charge 10"}`), OperationKey: "run-1:5"})
	require.NoError(t, err, "the 404 answered this call's own request: green ran nothing, and the call is made on a new session")
	assert.Equal(t, 1, rs.store.Appended())
}
