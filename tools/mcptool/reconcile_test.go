package mcptool_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/testkit"
	"github.com/agentrun/agentrun/tools"
	"github.com/agentrun/agentrun/tools/mcptool"
)

// A repeat of an idempotent call that the server refuses says nothing of
// the first call: the look cannot tell, with the server's words, and is
// never taken as found.
func TestARefusedRepeatOfAnIdempotentCallCannotTell(t *testing.T) {
	_, byName := connect(t, httpServer(t, testkit.MCPServerOptions{}))
	a := action(t, byName["kv__put"])
	call := tools.Call{Args: json.RawMessage(`{"key":"","value":"v"}`), OperationKey: "run-1:6"}
	rec, err := a.Reconcile(callCtx(t), call)
	require.NoError(t, err)
	assert.Equal(t, api.ReconcileCannotTell, rec.Outcome)
	assert.Equal(t, "repeating the idempotent MCP call failed: put needs a key", rec.Reason)
	assert.Empty(t, rec.Output.Content)
}

// A repeat that cannot be made (the connection is gone) is an error, which
// the run's look retries: neither found nor cannot tell.
func TestARepeatThatCannotBeMadeIsAnError(t *testing.T) {
	conn, byName := connect(t, httpServer(t, testkit.MCPServerOptions{}))
	a := action(t, byName["kv__put"])
	require.NoError(t, conn.Close())
	rec, err := a.Reconcile(callCtx(t), tools.Call{Args: json.RawMessage(`{"key":"k","value":"v"}`), OperationKey: "run-1:7"})
	require.Error(t, err)
	assert.Equal(t, api.ToolReconciliation{}, rec)
}

// The approval binds the exact call: arguments that are not JSON match no
// approval, and are neither sent nor repeated.
func TestACallWhoseArgumentsAreNotJSONIsNotTheApprovedOne(t *testing.T) {
	_, byName := connect(t, httpServer(t, testkit.MCPServerOptions{}))
	a := action(t, byName["kv__put"])
	_, err := a.Preview(tools.Call{Args: json.RawMessage(`{"key":`)})
	require.ErrorContains(t, err, "arguments are not JSON")
	call := tools.Call{Args: json.RawMessage(`{"key":`), OperationKey: "run-1:8", Approved: `kv.put({"key":`}
	_, err = a.Execute(callCtx(t), call)
	requireRejected(t, err)
	rec, err := a.Reconcile(callCtx(t), call)
	require.NoError(t, err)
	assert.Equal(t, api.ReconcileCannotTell, rec.Outcome)
	assert.Contains(t, rec.Reason, "the call is not the one approved")
}

// The checks of a server's config hold at their edges: a name of exactly
// the bound and an https URL pass them (the connection then fails, as
// nothing listens), one character more does not.
func TestAServerConfigAtTheEdgeOfItsChecksPassesThem(t *testing.T) {
	name := strings.Repeat("k", 24)
	_, err := mcptool.Connect(callCtx(t), mcptool.Server{Name: name, Command: []string{"/nonexistent/mcp-server"}})
	require.ErrorContains(t, err, "connect to MCP server "+name)
	_, err = mcptool.Connect(callCtx(t), mcptool.Server{Name: name + "k", Command: []string{"/nonexistent/mcp-server"}})
	require.ErrorContains(t, err, "want at most 24 lower case letters and digits")
	_, err = mcptool.Connect(callCtx(t), mcptool.Server{Name: "kv", URL: "https://127.0.0.1:1/mcp"})
	require.ErrorContains(t, err, "connect to MCP server kv")
	require.NotContains(t, err.Error(), "not an http(s) URL")
}

// The exact call approved runs, and its repeat finds it: an approval binds
// a call, it does not stop it.
func TestTheExactCallApprovedRunsAndItsRepeatFindsIt(t *testing.T) {
	_, byName := connect(t, httpServer(t, testkit.MCPServerOptions{}))
	a := action(t, byName["kv__put"])
	args := json.RawMessage(`{"key": "k", "value": "good"}`)
	preview, err := a.Preview(tools.Call{Args: args})
	require.NoError(t, err)
	assert.Equal(t, `kv.put({"key":"k","value":"good"})`, preview)
	call := tools.Call{Args: args, OperationKey: "run-1:9", Approved: preview}
	_, err = a.Execute(callCtx(t), call)
	require.NoError(t, err)
	rec, err := a.Reconcile(callCtx(t), call)
	require.NoError(t, err)
	assert.Equal(t, api.ReconcileFound, rec.Outcome)
	assert.Equal(t, 1, lookup(t, byName["kv__lookup"], "k").Applied)
}
