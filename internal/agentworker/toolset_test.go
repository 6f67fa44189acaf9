package agentworker_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/agents"
	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/agentworker"
	"github.com/agentrun/agentrun/internal/testkit"
	"github.com/agentrun/agentrun/tools"
)

// mcpServer is a real MCP server over streamable HTTP in the test's process,
// with a read, an idempotent action, and (hostile) a tool named so that it
// cannot be served. sessions counts the sessions the worker opened.
type mcpServer struct {
	url      string
	sessions *atomic.Int32
	closed   *atomic.Int32
}

func startMCPServer(t *testing.T, hostile bool) mcpServer {
	t.Helper()
	s := mcpServer{sessions: &atomic.Int32{}, closed: &atomic.Int32{}}
	srv := mcp.NewServer(&mcp.Implementation{Name: "kv", Version: "1"}, &mcp.ServerOptions{
		InitializedHandler: func(context.Context, *mcp.InitializedRequest) { s.sessions.Add(1) },
	})
	type keyIn struct {
		Key string `json:"key"`
	}
	noop := func(context.Context, *mcp.CallToolRequest, keyIn) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil, nil
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "lookup", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, noop)
	mcp.AddTool(srv, &mcp.Tool{Name: "put", Annotations: &mcp.ToolAnnotations{IdempotentHint: true}}, noop)
	if hostile {
		mcp.AddTool(srv, &mcp.Tool{Name: "bad name", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, noop)
	}
	handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	ln := testkit.Listen(t)
	web := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodDelete {
			s.closed.Add(1)
		}
		handler.ServeHTTP(w, r)
	})}
	go func() { _ = web.Serve(ln) }()
	t.Cleanup(func() { _ = web.Close() })
	s.url = "http://" + ln.Addr().String() + "/mcp"
	return s
}

func toolsFileOf(t *testing.T, content string) *agentworker.ToolsFile {
	t.Helper()
	path := filepath.Join(t.TempDir(), "tools.json")
	require.NoError(t, os.WriteFile(path, []byte(content), 0o600))
	f, err := agentworker.ReadToolsFile(path)
	require.NoError(t, err)
	return f
}

func agentTools(t *testing.T, r *tools.Registry, name string) map[string]tools.AgentTool {
	t.Helper()
	a, err := r.Agent(name)
	require.NoError(t, err)
	out := map[string]tools.AgentTool{}
	for _, at := range a.Tools {
		out[at.Name] = at
	}
	return out
}

func TestConnectToolsServesTheServersToolsToTheNamedAgentsWithTheirGates(t *testing.T) {
	kv := startMCPServer(t, false)
	f := toolsFileOf(t, fmt.Sprintf(`{
	"mcpServers": [{"name": "kv", "url": %q, "headers": {"Authorization": "Bearer x"},
		"agents": [{"name": "pr-review", "ask": false}, {"name": "ops"}]}],
	"httpTools": [{"name": "orders", "baseUrl": "https://api.example.com", "allowedPaths": ["/orders"], "agents": [{"name": "ops"}]}],
	"agents": [{"name": "ops", "systemPrompt": "You operate.", "task": "Operate on", "tools": ["get_pull_request"]}]}`, kv.url))

	set, err := agentworker.ConnectTools(t.Context(), f, nil, nil)
	require.NoError(t, err)

	require.Equal(t, []string{"orders", "kv__lookup", "kv__put"}, set.Extra)
	review := agentTools(t, set.Registry, agents.PRReview)
	require.Contains(t, review, api.ToolCreateIssueComment, "the built-in agent keeps its own tools")
	require.Equal(t, tools.AgentTool{Name: "kv__put", Ask: false}, review["kv__put"])
	require.NotContains(t, review, "orders", "the HTTP tool is granted to ops only")
	require.NotContains(t, agentTools(t, set.Registry, agents.Triage), "kv__lookup")
	ops := agentTools(t, set.Registry, "ops")
	require.Len(t, ops, 4)
	require.True(t, ops["kv__put"].Ask, "an unset ask asks")
	require.True(t, ops["orders"].Ask)

	a, err := set.Registry.Agent(agents.PRReview)
	require.NoError(t, err)
	put, refusal := set.Registry.Check(a, api.ToolCall{Name: "kv__put", Arguments: json.RawMessage(`{"key":"k"}`)}, api.Target{})
	require.Empty(t, refusal)
	require.False(t, put.Ask, "the idempotent tool is AgentDecides, and pr-review said no")
	read, refusal := set.Registry.Check(a, api.ToolCall{Name: "kv__lookup", Arguments: json.RawMessage(`{"key":"k"}`)}, api.Target{})
	require.Empty(t, refusal)
	require.Nil(t, read.Action, "a read-only tool is a read")

	require.NoError(t, set.Close())
	require.Equal(t, int32(1), kv.sessions.Load(), "one session for the worker's life")
	require.Equal(t, int32(1), kv.closed.Load(), "Close ends it")
}

func TestConnectToolsIsAllOrNothing(t *testing.T) {
	good := startMCPServer(t, false)
	hostile := startMCPServer(t, true)
	unreachable := "http://" + testkit.FreeAddress(t) + "/mcp"
	grant := `"agents": [{"name": "pr-review"}]`
	for _, tc := range []struct{ name, servers, want string }{
		{"a server lists a tool that cannot be served", fmt.Sprintf(`{"name": "kv", "url": %q, %s}, {"name": "bad", "url": %q, %s}`,
			good.url, grant, hostile.url, grant), `mcpServers[1]: a tool cannot be served`},
		{"a server cannot be reached", fmt.Sprintf(`{"name": "kv", "url": %q, %s}, {"name": "gone", "url": %q, %s}`,
			good.url, grant, unreachable, grant), `mcpServers[1]: connect to MCP server gone`},
		{"a server's name is not one", fmt.Sprintf(`{"name": "kv", "url": %q, %s}, {"name": "Bad-Name", "url": %q, %s}`,
			good.url, grant, good.url, grant), `mcpServers[1]: MCP server name "Bad-Name"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := good.closed.Load()
			f := toolsFileOf(t, `{"mcpServers": [`+tc.servers+`]}`)

			set, err := agentworker.ConnectTools(t.Context(), f, nil, nil)

			require.Nil(t, set)
			require.ErrorContains(t, err, tc.want)
			require.Equal(t, before+1, good.closed.Load(), "the connection already made is closed")
		})
	}
}

func TestConnectToolsRefusesAnMCPToolNamedLikeAnHTTPTool(t *testing.T) {
	kv := startMCPServer(t, false)
	f := toolsFileOf(t, fmt.Sprintf(`{
	"httpTools": [{"name": "kv__put", "baseUrl": "https://api.example.com", "allowedPaths": ["/"], "agents": [{"name": "triage"}]}],
	"mcpServers": [{"name": "kv", "url": %q, "agents": [{"name": "pr-review"}]}]}`, kv.url))

	_, err := agentworker.ConnectTools(t.Context(), f, nil, nil)

	require.ErrorContains(t, err, `mcpServers[0]: MCP tool "kv__put": the name is taken`)
}

func TestConnectToolsRefusesAnAgentOverAToolNobodyServes(t *testing.T) {
	f := toolsFileOf(t, `{"agents": [{"name": "ops", "systemPrompt": "p", "task": "t", "tools": ["get_pull_request", "kv__lookup"]}]}`)

	_, err := agentworker.ConnectTools(t.Context(), f, nil, nil)

	require.ErrorContains(t, err, `agents[0].tools[1]: no tool is named "kv__lookup"`)
}
