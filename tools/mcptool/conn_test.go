package mcptool_test

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/testkit"
	"github.com/agentrun/agentrun/tools"
	"github.com/agentrun/agentrun/tools/mcptool"
)

func TestAHungCallEndsAtTheDeadlineAndTheSessionStillServes(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			_, byName := connect(t, tr.server(t, testkit.MCPServerOptions{}))
			pidBefore := callText(t, byName["kv__pid"])
			// The activity's deadline; the server never answers before it.
			ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
			defer cancel()
			_, err := byName["kv__hang"].Tool.Execute(ctx, tools.Call{Args: json.RawMessage(`{}`)})
			require.ErrorIs(t, err, context.DeadlineExceeded)
			assert.Equal(t, pidBefore, callText(t, byName["kv__pid"]), "the caller gave up, the server did not fail: same session")
		})
	}
}

func TestConcurrentCallsAfterACrashShareOneNewServer(t *testing.T) {
	_, byName := connect(t, stdioServer(t, testkit.MCPServerOptions{}))
	pidBefore := callText(t, byName["kv__pid"])
	_, err := byName["kv__crash"].Tool.Execute(callCtx(t), tools.Call{Args: json.RawMessage(`{}`)})
	require.Error(t, err)

	const callers = 8
	outs := make([]api.ToolOutput, callers)
	errs := make([]error, callers)
	var wg sync.WaitGroup
	for i := range callers {
		wg.Go(func() {
			outs[i], errs[i] = byName["kv__pid"].Tool.Execute(callCtx(t), tools.Call{Args: json.RawMessage(`{}`)})
		})
	}
	wg.Wait()
	pids := make([]string, callers)
	for i := range callers {
		require.NoError(t, errs[i])
		pids[i] = readContent(t, outs[i]).Text
		assert.Equal(t, pids[0], pids[i], "one reconnect, shared")
	}
	assert.NotEqual(t, pidBefore, pids[0], "a new server process")
}

func TestHTTPHeadersReachTheServer(t *testing.T) {
	ln := testkit.Listen(t)
	mcpServer := testkit.NewMCPServer(testkit.MCPServerOptions{Die: func() {}})
	mcpHandler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return mcpServer }, nil)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer t0ken" {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		mcpHandler.ServeHTTP(w, r)
	})}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	s := mcptool.Server{Name: "kv", URL: "http://" + ln.Addr().String()}

	_, err := mcptool.Connect(callCtx(t), s)
	require.Error(t, err, "without the header the server refuses")

	s.Headers = map[string]string{"Authorization": "Bearer t0ken"}
	_, byName := connect(t, s)
	assert.NotEmpty(t, callText(t, byName["kv__pid"]))
}

func TestAClosedConnRefusesCalls(t *testing.T) {
	conn, byName := connect(t, stdioServer(t, testkit.MCPServerOptions{}))
	require.NoError(t, conn.Close())
	_, err := byName["kv__pid"].Tool.Execute(callCtx(t), tools.Call{Args: json.RawMessage(`{}`)})
	require.ErrorContains(t, err, "connection closed by the worker")
}

func callText(t *testing.T, r mcptool.Registered) string {
	t.Helper()
	require.NotNil(t, r.Tool)
	out, err := r.Tool.Execute(callCtx(t), tools.Call{Args: json.RawMessage(`{}`)})
	require.NoError(t, err)
	return readContent(t, out).Text
}

// restartableServer serves an MCP server over streamable HTTP at url;
// restart replaces it by a new one, which knows no session. before, when
// not nil, sees every request first.
func restartableServer(t *testing.T, before func(r *http.Request)) (url string, restart func()) {
	ln := testkit.Listen(t)
	var current atomic.Pointer[http.Handler]
	restart = func() {
		mcpServer := testkit.NewMCPServer(testkit.MCPServerOptions{Die: func() {}})
		var h http.Handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return mcpServer }, nil)
		current.Store(&h)
	}
	restart()
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if before != nil {
			before(r)
		}
		(*current.Load()).ServeHTTP(w, r)
	})}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return "http://" + ln.Addr().String(), restart
}

func TestARestartedHTTPServerIsReconnectedWithoutFailingTheCall(t *testing.T) {
	url, restart := restartableServer(t, nil)
	_, byName := connect(t, mcptool.Server{Name: "kv", URL: url})
	put := action(t, byName["kv__put"])
	_, err := put.Execute(callCtx(t), tools.Call{Args: json.RawMessage(`{"key":"a","value":"1"}`)})
	require.NoError(t, err)

	restart() // a new server: it knows no session
	_, err = put.Execute(callCtx(t), tools.Call{Args: json.RawMessage(`{"key":"b","value":"2"}`)})
	require.NoError(t, err, "a 404 for a lost session ran nothing: the call is made on a new session")
	assert.Equal(t, 1, lookup(t, byName["kv__lookup"], "b").Applied, "once")
	_, err = byName["kv__lookup"].Tool.Execute(callCtx(t), tools.Call{Args: json.RawMessage(`{"key":"a"}`)})
	requireRejected(t, err) // the new server's store is its own
}

func TestACallWaitingForAnotherCallsReconnectKeepsItsOwnDeadline(t *testing.T) {
	var holdInitialize atomic.Bool
	initializing, release := make(chan struct{}, 1), make(chan struct{})
	url, restart := restartableServer(t, func(r *http.Request) {
		// Only initialize is sent without a session.
		if holdInitialize.Load() && r.Method == http.MethodPost && r.Header.Get("Mcp-Session-Id") == "" {
			initializing <- struct{}{}
			<-release
		}
	})
	_, byName := connect(t, mcptool.Server{Name: "kv", URL: url})
	pid := byName["kv__pid"].Tool

	holdInitialize.Store(true)
	restart() // the session is lost: the next call reconnects, and its initialize hangs
	first := make(chan error, 1)
	go func() {
		_, err := pid.Execute(callCtx(t), tools.Call{Args: json.RawMessage(`{}`)})
		first <- err
	}()
	<-initializing

	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	_, err := pid.Execute(ctx, tools.Call{Args: json.RawMessage(`{}`)})
	require.ErrorIs(t, err, context.DeadlineExceeded, "the waiting call gave up at its own deadline")

	holdInitialize.Store(false)
	close(release)
	require.NoError(t, <-first, "the reconnecting call went on")
}

func TestHTTPHeadersAreNotHandedToARedirectsHost(t *testing.T) {
	var leaked atomic.Value
	other := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		leaked.Store(r.Header.Get("Authorization"))
		http.Error(w, "no", http.StatusNotFound)
	})}
	otherLn := testkit.Listen(t)
	go func() { _ = other.Serve(otherLn) }()
	t.Cleanup(func() { _ = other.Close() })
	redirector := &http.Server{Handler: http.RedirectHandler("http://"+otherLn.Addr().String()+"/mcp", http.StatusTemporaryRedirect)}
	ln := testkit.Listen(t)
	go func() { _ = redirector.Serve(ln) }()
	t.Cleanup(func() { _ = redirector.Close() })

	_, err := mcptool.Connect(callCtx(t), mcptool.Server{Name: "kv", URL: "http://" + ln.Addr().String(),
		Headers: map[string]string{"Authorization": "Bearer t0ken"}})
	require.Error(t, err)
	assert.Nil(t, leaked.Load(), "the redirect was not followed")
}

func TestAServerThatPagesItsToolsForeverIsRefused(t *testing.T) {
	_, err := mcptool.Connect(callCtx(t), httpServer(t, testkit.MCPServerOptions{EndlessList: true}))
	require.ErrorContains(t, err, "MCP server kv lists more than 256 tools")
}
