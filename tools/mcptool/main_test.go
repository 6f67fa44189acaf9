package mcptool_test

import (
	"context"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/internal/testkit"
	"github.com/agentrun/agentrun/tools"
	"github.com/agentrun/agentrun/tools/mcptool"
)

// serverMode, when set, makes the test binary the stdio MCP server itself:
// the tests start it as a child process, the way a worker starts one.
const serverMode = "MCPTOOL_TEST_SERVER"

func TestMain(m *testing.M) {
	switch os.Getenv(serverMode) {
	case "":
		os.Exit(m.Run())
	case "hostile":
		serveStdio(testkit.MCPServerOptions{Hostile: true})
	case "identity":
		serveStdio(testkit.MCPServerOptions{Identity: true})
	default:
		serveStdio(testkit.MCPServerOptions{})
	}
}

func serveStdio(opts testkit.MCPServerOptions) {
	opts.Die = func() { os.Exit(3) }
	if err := testkit.NewMCPServer(opts).Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		os.Exit(1)
	}
	os.Exit(0)
}

// transport is one way to reach a fresh test server.
type transport struct {
	name   string
	server func(t *testing.T, opts testkit.MCPServerOptions) mcptool.Server
}

var transports = []transport{{"stdio", stdioServer}, {"http", httpServer}}

func stdioServer(t *testing.T, opts testkit.MCPServerOptions) mcptool.Server {
	mode := "plain"
	if opts.Hostile {
		mode = "hostile"
	}
	return mcptool.Server{Name: "kv", Command: []string{os.Args[0]}, Env: []string{serverMode + "=" + mode}}
}

func httpServer(t *testing.T, opts testkit.MCPServerOptions) mcptool.Server {
	ln := testkit.Listen(t)
	srv := &http.Server{}
	opts.Die = func() { _ = srv.Close() }
	mcpServer := testkit.NewMCPServer(opts)
	srv.Handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return mcpServer }, nil)
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return mcptool.Server{Name: "kv", URL: "http://" + ln.Addr().String() + "/mcp"}
}

// callCtx bounds a test's calls the way an activity's deadline bounds them.
func callCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// connect connects to s and returns its tools by agentrun name.
func connect(t *testing.T, s mcptool.Server) (*mcptool.Conn, map[string]mcptool.Registered) {
	t.Helper()
	conn, err := mcptool.Connect(callCtx(t), s)
	require.NoError(t, err)
	t.Cleanup(func() { _ = conn.Close() })
	list, err := conn.Tools()
	require.NoError(t, err)
	byName := map[string]mcptool.Registered{}
	for _, r := range list {
		byName[r.Tool.Spec().Name] = r
	}
	return conn, byName
}

func action(t *testing.T, r mcptool.Registered) tools.Action {
	t.Helper()
	a, ok := r.Tool.(tools.Action)
	require.True(t, ok, "%s is not an action", r.Tool.Spec().Name)
	return a
}
