package agentworker

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/internal/testkit/standalone"
)

// writeToolsFile writes content to a fresh file and returns its path.
func writeToolsFile(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "tools.json")
	require.NoError(t, os.WriteFile(path, []byte(content), 0o600))
	return path
}

const goodHTTPTool = `{"name": "orders", "baseUrl": "https://api.example.com/v1", "allowedPaths": ["/orders"],
	"headers": {"Authorization": "Bearer s3cr3t-token-value"}, "agents": [{"name": "pr-review"}]}`

func TestReadToolsFileTakesEverySection(t *testing.T) {
	path := writeToolsFile(t, `{
	"mcpServers": [{"name": "kv", "command": ["/bin/kv", "--stdio"], "env": ["KV_DIR=/tmp"],
		"agents": [{"name": "pr-review", "ask": false}, {"name": "ops"}]}],
	"httpTools": [`+goodHTTPTool+`],
	"agents": [{"name": "ops", "systemPrompt": "You operate.", "task": "Operate on", "tools": ["get_pull_request"],
		"maxSteps": 7, "batchApproval": true}]}`)

	f, err := ReadToolsFile(path)

	require.NoError(t, err)
	require.Len(t, f.MCPServers, 1)
	kv := f.MCPServers[0]
	require.Equal(t, []string{"/bin/kv", "--stdio"}, kv.Command)
	require.Equal(t, []string{"KV_DIR=/tmp"}, kv.Env)
	require.False(t, kv.Agents[0].ask(), "ask false lets the agent's idempotent calls through")
	require.True(t, kv.Agents[1].ask(), "an unset ask asks")
	require.Len(t, f.httpTools, 1)
	require.Equal(t, "orders", f.httpTools[0].Spec().Name)
	require.Equal(t, AgentEntry{Name: "ops", SystemPrompt: "You operate.", Task: "Operate on",
		Tools: []string{"get_pull_request"}, MaxSteps: 7, BatchApproval: true}, f.Agents[0])
}

// Every refusal names the file and where in it the fault is, and never the
// header's secret.
func TestReadToolsFileRefusesBadFilesNamingTheFileAndThePath(t *testing.T) {
	for _, tc := range []struct{ name, content, want string }{
		{"not JSON", `{"mcpServers": [`, "not JSON"},
		{"two values", `{} {}`, "more than one JSON value"},
		{"an array", `[]`, "want a JSON object"},
		{"an unknown top-level field", `{"mcpServer": []}`, `mcpServer: unknown field "mcpServer"`},
		{"a field in the wrong case", `{"MCPServers": []}`, `unknown field "MCPServers"`},
		{"an unknown server field", `{"mcpServers": [{"name": "kv", "command": ["x"], "agents": [{"name": "pr-review"}], "cmd": "y"}]}`,
			`mcpServers[0].cmd: unknown field`},
		{"the worker-only stderr field", `{"mcpServers": [{"name": "kv", "command": ["x"], "Stderr": 1, "agents": [{"name": "pr-review"}]}]}`,
			`mcpServers[0].Stderr: unknown field`},
		{"an unknown grant field", `{"mcpServers": [{"name": "kv", "command": ["x"], "agents": [{"name": "pr-review", "always": true}]}]}`,
			`mcpServers[0].agents[0].always: unknown field`},
		{"a command that is a string", `{"mcpServers": [{"name": "kv", "command": "x", "agents": [{"name": "pr-review"}]}]}`,
			`mcpServers[0].command: want an array`},
		{"an ask that is a string", `{"mcpServers": [{"name": "kv", "command": ["x"], "agents": [{"name": "pr-review", "ask": "no"}]}]}`,
			`mcpServers[0].agents[0].ask: want true or false`},
		{"a fractional maxSteps", `{"agents": [{"name": "ops", "systemPrompt": "p", "task": "t", "maxSteps": 1.5}]}`,
			`agents[0].maxSteps: want a whole number`},
		{"a server for nobody", `{"mcpServers": [{"name": "kv", "command": ["x"]}]}`, `mcpServers[0].agents: name at least one agent`},
		{"a grant to an unknown agent", `{"mcpServers": [{"name": "kv", "command": ["x"], "agents": [{"name": "pr-review"}, {"name": "nobody"}]}]}`,
			`mcpServers[0].agents[1].name: "nobody" is neither a built-in agent`},
		{"a grant listed twice", `{"mcpServers": [{"name": "kv", "command": ["x"], "agents": [{"name": "triage"}, {"name": "triage"}]}]}`,
			`mcpServers[0].agents[1].name: agent "triage" is listed twice`},
		{"a server listed twice", `{"mcpServers": [{"name": "kv", "command": ["x"], "agents": [{"name": "triage"}]}, {"name": "kv", "url": "http://h/mcp", "agents": [{"name": "triage"}]}]}`,
			`mcpServers[1].name: MCP server "kv" is listed twice`},
		{"an agent named like a built-in", `{"agents": [{"name": "pr-review", "systemPrompt": "p", "task": "t"}]}`,
			`agents[0].name: "pr-review" is a built-in agent`},
		{"an agent defined twice", `{"agents": [{"name": "ops", "systemPrompt": "p", "task": "t"}, {"name": "ops", "systemPrompt": "p", "task": "t"}]}`,
			`agents[1].name: agent "ops" is defined twice`},
		{"an agent without a prompt", `{"agents": [{"name": "ops", "task": "t"}]}`, `agents[0]: agent "ops" needs a systemPrompt`},
		{"an HTTP tool named like a built-in", `{"httpTools": [{"name": "create_issue", "baseUrl": "https://h", "allowedPaths": ["/"], "agents": [{"name": "triage"}]}]}`,
			`httpTools[0].name: "create_issue" is a built-in tool`},
		{"two HTTP tools of one name", `{"httpTools": [` + goodHTTPTool + `,` + goodHTTPTool + `]}`, `httpTools[1].name: tool "orders" is listed twice`},
		{"an HTTP tool without paths", `{"httpTools": [{"baseUrl": "https://h", "agents": [{"name": "triage"}]}]}`, `httpTools[0]: httptool: AllowedPaths is empty`},
		{"an HTTP tool setting the idempotency key itself", `{"httpTools": [{"baseUrl": "https://h", "allowedPaths": ["/"], "headers": {"Idempotency-Key": "s3cr3t-token-value"}, "agents": [{"name": "triage"}]}]}`,
			`httpTools[0]: httptool: Header Idempotency-Key is set by the tool itself`},
		{"an HTTP header with a line break", `{"httpTools": [{"baseUrl": "https://h", "allowedPaths": ["/"], "headers": {"X-Key": "s3cr3t-token-value\r\nX: y"}, "agents": [{"name": "triage"}]}]}`,
			`httpTools[0]: httptool: Header X-Key has a value with a line break`},
		{"an HTTP tool for nobody", `{"httpTools": [{"baseUrl": "https://h", "allowedPaths": ["/"]}]}`, `httpTools[0].agents: name at least one agent`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := writeToolsFile(t, tc.content)

			f, err := ReadToolsFile(path)

			require.Nil(t, f)
			require.ErrorContains(t, err, "tools file "+path+": ")
			require.ErrorContains(t, err, tc.want)
			require.NotContains(t, err.Error(), "s3cr3t-token-value", "a header's value is never in a message")
		})
	}
}

func TestReadToolsFileRefusesAMissingAndAnOversizedFile(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "absent.json")
	_, err := ReadToolsFile(missing)
	require.ErrorContains(t, err, "tools file "+missing)

	huge := writeToolsFile(t, `{"agents": [], "x": "`+strings.Repeat("a", maxToolsFileBytes)+`"}`)
	_, err = ReadToolsFile(huge)
	require.ErrorContains(t, err, "larger than")
}

func TestAgentToolsFileIsReadWithTheConfigAndItsErrorNamesTheVariable(t *testing.T) {
	path := writeToolsFile(t, `{"httpTools": [`+goodHTTPTool+`]}`)
	cfg, err := ConfigFromEnv(standalone.Getenv(map[string]string{"AGENT_TOOLS_FILE": path}))
	require.NoError(t, err)
	require.NotNil(t, cfg.Tools)
	require.Len(t, cfg.Tools.httpTools, 1)

	bad := writeToolsFile(t, `{"httpTool": []}`)
	_, err = ConfigFromEnv(standalone.Getenv(map[string]string{"AGENT_TOOLS_FILE": bad}))
	require.ErrorContains(t, err, "AGENT_TOOLS_FILE")
	require.ErrorContains(t, err, `httpTool: unknown field`)
}
