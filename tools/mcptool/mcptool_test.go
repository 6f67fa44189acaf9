package mcptool_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/testkit"
	"github.com/agentrun/agentrun/internal/testkit/standalone"
	"github.com/agentrun/agentrun/tools"
	"github.com/agentrun/agentrun/tools/mcptool"
)

// content is the output a converted tool hands the model.
type content struct {
	Text       string          `json:"text"`
	Structured json.RawMessage `json:"structured"`
	Truncated  string          `json:"truncated"`
}

func readContent(t *testing.T, out api.ToolOutput) content {
	t.Helper()
	var c content
	require.NoError(t, json.Unmarshal(out.Content, &c), "content %s", out.Content)
	return c
}

// lookup reads the server's store through its read tool.
func lookup(t *testing.T, r mcptool.Registered, key string) testkit.MCPEntry {
	t.Helper()
	out, err := r.Tool.Execute(callCtx(t), tools.Call{Args: mustJSON(t, map[string]string{"key": key})})
	require.NoError(t, err)
	var e testkit.MCPEntry
	require.NoError(t, json.Unmarshal(readContent(t, out).Structured, &e))
	return e
}

func mustJSON(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}

func requireRejected(t *testing.T, err error) *temporal.ApplicationError {
	t.Helper()
	appErr := standalone.ApplicationError(t, err)
	require.Equal(t, api.ErrTypeToolRejected, appErr.Type())
	require.True(t, appErr.NonRetryable())
	return appErr
}

func TestReadOnlyToolRunsAndServerErrorsAreRejected(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			_, byName := connect(t, tr.server(t, testkit.MCPServerOptions{}))
			read := byName["kv__lookup"]
			require.NotNil(t, read.Tool, "tools: %v", byName)
			_, isAction := read.Tool.(tools.Action)
			assert.False(t, isAction, "a read-only tool is a read")
			assert.Equal(t, tools.NeverAsk, read.Gate)
			assert.False(t, read.Tool.Spec().SideEffect)
			assert.Equal(t, "Reads a key.", read.Tool.Spec().Description)

			_, err := read.Tool.Execute(callCtx(t), tools.Call{Args: json.RawMessage(`{"key":"missing"}`)})
			appErr := requireRejected(t, err)
			assert.Contains(t, appErr.Error(), `no key "missing"`, "the model reads the server's answer")

			_, err = action(t, byName["kv__put"]).Execute(callCtx(t), tools.Call{Args: json.RawMessage(`{"key":"a","value":"1"}`), OperationKey: "run:1"})
			require.NoError(t, err)
			e := lookup(t, read, "a")
			assert.Equal(t, "1", e.Value)
		})
	}
}

func TestIdempotentReconcileRepeatsTheCallAndTheEffectHappensOncePerKey(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			_, byName := connect(t, tr.server(t, testkit.MCPServerOptions{}))
			put := byName["kv__put"]
			assert.Equal(t, tools.AgentDecides, put.Gate)
			assert.True(t, put.Tool.Spec().SideEffect)
			a := action(t, put)
			call := tools.Call{Args: json.RawMessage(`{"key":"k","value":"v"}`), OperationKey: "run-1:3"}

			out, err := a.Execute(callCtx(t), call)
			require.NoError(t, err)
			assert.Equal(t, "k=v", readContent(t, out).Text)
			for range 2 {
				rec, err := a.Reconcile(callCtx(t), call)
				require.NoError(t, err)
				assert.Equal(t, api.ReconcileFound, rec.Outcome)
				assert.Equal(t, out, rec.Output, "the repeat's result is the step's")
			}
			e := lookup(t, byName["kv__lookup"], "k")
			assert.Equal(t, 1, e.Applied, "three calls, one effect")
			assert.Equal(t, []string{"run-1:3", "run-1:3", "run-1:3"}, e.OperationKeys,
				"every call carries the step's operationKey in _meta")
		})
	}
}

func TestNonIdempotentReconcileAnswersCannotTellWithoutCalling(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			_, byName := connect(t, tr.server(t, testkit.MCPServerOptions{}))
			app := byName["kv__append"]
			assert.Equal(t, tools.AlwaysAsk, app.Gate, "no annotation is never read as safe")
			a := action(t, app)
			call := tools.Call{Args: json.RawMessage(`{"text":"hello"}`), OperationKey: "run-1:4"}

			out, err := a.Execute(callCtx(t), call)
			require.NoError(t, err)
			assert.Equal(t, "line 1:\nhello", readContent(t, out).Text)
			rec, err := a.Reconcile(callCtx(t), call)
			require.NoError(t, err)
			assert.Equal(t, api.ReconcileCannotTell, rec.Outcome)
			assert.Contains(t, rec.Reason, "an operator must say whether it ran")
			assert.Equal(t, 1, lookup(t, byName["kv__lookup"], "").Appended, "reconcile did not call again")
		})
	}
}

func TestAnActionRunsOnlyTheApprovedCall(t *testing.T) {
	_, byName := connect(t, stdioServer(t, testkit.MCPServerOptions{}))
	a := action(t, byName["kv__put"])
	call := tools.Call{Args: json.RawMessage(`{"key":"k","value":"evil"}`), OperationKey: "run-1:5",
		Approved: `kv.put({"key":"k","value":"good"})`}
	_, err := a.Execute(callCtx(t), call)
	requireRejected(t, err)
	rec, err := a.Reconcile(callCtx(t), call)
	require.NoError(t, err)
	assert.Equal(t, api.ReconcileCannotTell, rec.Outcome)
	_, err = byName["kv__lookup"].Tool.Execute(callCtx(t), tools.Call{Args: json.RawMessage(`{"key":"k"}`)})
	requireRejected(t, err) // never written
}

func TestHostileToolNamesAndSchemasAreRefusedAndTheRestServed(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			conn, err := mcptool.Connect(callCtx(t), tr.server(t, testkit.MCPServerOptions{Hostile: true}))
			require.NoError(t, err)
			t.Cleanup(func() { _ = conn.Close() })
			list, err := conn.Tools()
			require.Error(t, err)
			msg := err.Error()
			assert.Contains(t, msg, "kv.Get-File: its name kv__get_file is also that of get_file")
			assert.Contains(t, msg, "kv.get_file: its name kv__get_file is also that of Get-File")
			assert.Contains(t, msg, "kv.---: its name has no letter or digit")
			assert.Contains(t, msg, "longer than 64 characters")
			assert.Contains(t, msg, `kv."bad name": not an MCP tool name`)
			assert.Contains(t, msg, `kv.scalar: tool "kv__scalar": parameters describe "string"; a tool takes an object`)
			assert.Contains(t, msg, "kv.twice: the server lists it 2 times")
			assert.Equal(t, 1, strings.Count(msg, "kv.twice"), "refused once")

			var names []string
			for _, r := range list {
				names = append(names, r.Tool.Spec().Name)
			}
			assert.Equal(t, []string{"kv__fetch_page_2", "kv__append", "kv__chatty", "kv__crash", "kv__env", "kv__hang", "kv__lookup", "kv__pid", "kv__put", "kv__wipe"}, names,
				"sorted by MCP name; the valid tools are served")
			assert.LessOrEqual(t, len(list[2].Tool.Spec().Description), 4096, "a server's words in every prompt are bounded")
			wipe := list[len(list)-1]
			_, isAction := wipe.Tool.(tools.Action)
			assert.True(t, isAction, "read-only and destructive is not read-only")
			assert.Equal(t, tools.AgentDecides, wipe.Gate, "its idempotent claim still stands")
		})
	}
}

func TestConvertedToolsRegisterAndTheRegistryRefusesABadCall(t *testing.T) {
	_, byName := connect(t, stdioServer(t, testkit.MCPServerOptions{}))
	reg := tools.NewRegistry()
	agent := tools.Agent{Name: "kv-agent"}
	for _, name := range []string{"kv__lookup", "kv__put", "kv__append"} {
		r := byName[name]
		require.NoError(t, reg.Add(r.Tool, r.Gate))
		agent.Tools = append(agent.Tools, tools.AgentTool{Name: name})
	}
	require.NoError(t, reg.AddAgent(agent))
	target := api.Target{Owner: "o", Repo: "r", PullNumber: 1}

	_, refusal := reg.Check(agent, api.ToolCall{Name: "kv__put", Arguments: json.RawMessage(`{"key":5,"value":"v"}`)}, target)
	assert.Contains(t, refusal, "invalid arguments for kv__put")

	checked, refusal := reg.Check(agent, api.ToolCall{Name: "kv__put", Arguments: json.RawMessage(`{"value":"v", "key":"k"}`)}, target)
	require.Empty(t, refusal)
	assert.Equal(t, `kv.put({"key":"k","value":"v"})`, checked.Preview, "the exact call, canonical")
	assert.Equal(t, "mcp:kv", checked.Touches)
	assert.False(t, checked.Ask, "an idempotent tool asks when the agent says")

	checked, refusal = reg.Check(agent, api.ToolCall{Name: "kv__append", Arguments: json.RawMessage(`{"text":"x"}`)}, target)
	require.Empty(t, refusal)
	assert.True(t, checked.Ask, "any other action always asks")
	assert.Equal(t, `kv.append({"text":"x"})`, checked.Preview)
}

func TestAServerThatDiesMidCallIsAnErrorAndTheNextCallReconnects(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			_, byName := connect(t, tr.server(t, testkit.MCPServerOptions{}))
			ctx := callCtx(t)
			_, err := byName["kv__crash"].Tool.Execute(ctx, tools.Call{Args: json.RawMessage(`{}`)})
			require.Error(t, err)
			require.NoError(t, ctx.Err(), "the call ended with the server, not the deadline")
			if tr.name != "stdio" {
				return // the HTTP server is gone for good
			}
			// The worker starts a new server process for the next call.
			_, err = action(t, byName["kv__put"]).Execute(callCtx(t), tools.Call{Args: json.RawMessage(`{"key":"a","value":"b"}`)})
			require.NoError(t, err)
			assert.Equal(t, "b", lookup(t, byName["kv__lookup"], "a").Value)
		})
	}
}

func TestAConnOutlivesTheContextItWasMadeWith(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			conn, err := mcptool.Connect(ctx, tr.server(t, testkit.MCPServerOptions{}))
			require.NoError(t, err)
			t.Cleanup(func() { _ = conn.Close() })
			cancel()
			list, err := conn.Tools()
			require.NoError(t, err)
			for _, r := range list {
				if r.Tool.Spec().Name == "kv__append" {
					_, err := r.Tool.Execute(callCtx(t), tools.Call{Args: json.RawMessage(`{"text":"x"}`)})
					require.NoError(t, err)
					return
				}
			}
			t.Fatal("kv__append is not served")
		})
	}
}

func TestAStdioServerGetsOnlyItsOwnEnvironment(t *testing.T) {
	t.Setenv("AGENTRUN_TEST_SECRET", "s3cret")
	// As a worker's configuration says it.
	var s mcptool.Server
	cfg := fmt.Sprintf(`{"name":"kv","command":[%q],"env":[%q,"MCPTOOL_VISIBLE=yes"]}`, os.Args[0], serverMode+"=plain")
	require.NoError(t, json.Unmarshal([]byte(cfg), &s))
	s.BaseEnv = []string{"PATH=/usr/bin:/bin", "MCPTOOL_VISIBLE=overridden"}
	_, byName := connect(t, s)
	env := func(name string) string {
		out, err := byName["kv__env"].Tool.Execute(callCtx(t), tools.Call{Args: mustJSON(t, map[string]string{"name": name})})
		require.NoError(t, err)
		return readContent(t, out).Text
	}
	assert.Equal(t, "", env("AGENTRUN_TEST_SECRET"), "the worker's secrets stay in the worker")
	assert.Equal(t, "yes", env("MCPTOOL_VISIBLE"), "the server's own env wins over the worker's base")
	assert.Equal(t, "/usr/bin:/bin", env("PATH"), "the base the worker hands over, not the process's own")
}

func TestServerConfigIsCheckedBeforeAnythingStarts(t *testing.T) {
	for _, tc := range []struct {
		server mcptool.Server
		want   string
	}{
		{mcptool.Server{Name: "Bad", Command: []string{"x"}}, `name "Bad"`},
		{mcptool.Server{Name: "a__b", Command: []string{"x"}}, `name "a__b"`},
		{mcptool.Server{Name: "kv"}, "set Command (stdio) or URL"},
		{mcptool.Server{Name: "kv", Command: []string{"x"}, URL: "http://h"}, "not both"},
		{mcptool.Server{Name: "kv", URL: "file:///etc/passwd"}, "not an http(s) URL"},
		{mcptool.Server{Name: "kv", URL: "http://h", Env: []string{"A=b"}}, "Env is for a stdio server"},
		{mcptool.Server{Name: "kv", Command: []string{"x"}, Headers: map[string]string{"A": "b"}}, "Headers are for an HTTP server"},
		{mcptool.Server{Name: "kv", URL: "http://h", Headers: map[string]string{"idempotency-key": "k"}}, "Headers may not set Idempotency-Key"},
		{mcptool.Server{Name: "kv", Command: []string{"/nonexistent/mcp-server"}}, "connect to MCP server kv"},
		{mcptool.Server{Name: "kv", Command: []string{"true"}}, "connect to MCP server kv"},
	} {
		_, err := mcptool.Connect(callCtx(t), tc.server)
		require.Error(t, err, "%+v", tc.server)
		assert.Contains(t, err.Error(), tc.want)
	}
}
