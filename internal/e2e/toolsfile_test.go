package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/e2e/mcpkv/kvstate"

	"github.com/agentrun/agentrun/internal/testkit"
	"github.com/agentrun/agentrun/internal/testkit/standalone"
)

// mcpkvBinary builds the test MCP server once per test binary.
func mcpkvBinary(t *testing.T) string {
	t.Helper()
	return builder.Program(t, "mcpkv", ".", "./internal/e2e/mcpkv")
}

func readKV(t *testing.T, path string) kvstate.State {
	t.Helper()
	st, err := kvstate.Load(path)
	require.NoError(t, err)
	return st
}

// toolCalls is a chat completion whose assistant calls one tool.
func toolCalls(id, name, args string) standalone.Reply {
	body, err := json.Marshal(map[string]any{
		"id": "chatcmpl-" + id, "object": "chat.completion", "created": 1752141001, "model": "gpt-4.1-mini",
		"choices": []any{map[string]any{"index": 0, "finish_reason": "tool_calls", "message": map[string]any{
			"role": "assistant", "content": nil,
			"tool_calls": []any{map[string]any{"id": "call_" + id, "type": "function",
				"function": map[string]any{"name": name, "arguments": args}}},
		}}},
		"usage": map[string]any{"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
	})
	if err != nil {
		panic(err)
	}
	return standalone.Reply{Status: http.StatusOK, Body: string(body)}
}

func finalAnswer(id, text string) standalone.Reply {
	body, err := json.Marshal(map[string]any{
		"id": "chatcmpl-" + id, "object": "chat.completion", "created": 1752141002, "model": "gpt-4.1-mini",
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": text}}},
		"usage": map[string]any{"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
	})
	if err != nil {
		panic(err)
	}
	return standalone.Reply{Status: http.StatusOK, Body: string(body)}
}

// ordersAPI honours Idempotency-Key: a repeat of a key is answered with the
// first answer and makes no second order. The first request's answer is
// lost: the connection closes after the order is made.
type ordersAPI struct {
	mu     sync.Mutex
	orders int
	byKey  map[string]string
	keys   []string
	lost   bool
	auth   []string
}

func (o *ordersAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.auth = append(o.auth, r.Header.Get("Authorization"))
	key := r.Header.Get("Idempotency-Key")
	o.keys = append(o.keys, key)
	if r.Method != http.MethodPost || r.URL.Path != "/api/orders" || key == "" {
		http.Error(w, "want POST /api/orders with an Idempotency-Key", http.StatusBadRequest)
		return
	}
	answer, seen := o.byKey[key]
	if !seen {
		o.orders++
		answer = fmt.Sprintf(`{"order":%d}`, o.orders)
		o.byKey[key] = answer
	}
	if !o.lost {
		o.lost = true
		conn, _, err := http.NewResponseController(w).Hijack()
		if err == nil {
			_ = conn.Close()
			return
		}
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	_, _ = w.Write([]byte(answer))
}

const ordersSecret = "Bearer orders-s3cr3t-0123456789abcdef"

// TestWorkerServesToolsFromItsToolsFile runs the real worker with an
// AGENT_TOOLS_FILE naming a stdio MCP server (granted to the built-in
// pr-review) and an http_request tool (granted to an agent the file
// defines), with the model scripted through an OpenAI-compatible fake. Each
// action waits for approval, loses its first answer after its effect, is
// reconciled by repeating it, and has its effect once.
func TestWorkerServesToolsFromItsToolsFile(t *testing.T) {
	kv := mcpkvBinary(t)
	s := newStack(t)
	dir := t.TempDir()
	statePath := filepath.Join(dir, "kv.json")
	orders := &ordersAPI{byKey: map[string]string{}}
	ln := testkit.Listen(t)
	web := &http.Server{Handler: orders}
	go func() { _ = web.Serve(ln) }()
	t.Cleanup(func() { _ = web.Close() })

	toolsFile := filepath.Join(dir, "tools.json")
	file, err := json.Marshal(map[string]any{
		"mcpServers": []any{map[string]any{"name": "kv", "command": []string{kv},
			"env":    []string{"MCPKV_STATE=" + statePath, "MCPKV_LOSE_FIRST_PUT=1"},
			"agents": []any{map[string]any{"name": "pr-review", "ask": true}}}},
		"httpTools": []any{map[string]any{"name": "orders", "baseUrl": "http://" + ln.Addr().String() + "/api",
			"allowedPaths": []string{"/orders"}, "headers": map[string]string{"Authorization": ordersSecret},
			"agents": []any{map[string]any{"name": "ops"}}}},
		"agents": []any{map[string]any{"name": "ops", "systemPrompt": "You place orders.", "task": "Order for",
			"tools": []string{"get_pull_request"}}},
	})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(toolsFile, file, 0o600))

	model := standalone.Start(t,
		toolCalls("kv1", "kv__lookup", `{"key":"greeting"}`),
		toolCalls("kv2", "kv__put", `{"key":"greeting","value":"hello"}`),
		finalAnswer("kv3", "Set greeting to hello."),
		toolCalls("or1", "orders", `{"method":"POST","path":"/orders","body":{"item":"widget"}}`),
		finalAnswer("or2", "Ordered one widget."),
	)
	const queue = "agent-runs-toolsfile"
	worker := StartWorker(t, s.Bins.Worker, s.Client(), WorkerSpec{
		Name: "worker-tools", TemporalAddress: s.Server.Address(), TaskQueue: queue, GitHubAPIURL: s.Sandbox.APIURL(),
		ModelEnv: map[string]string{
			"MODEL_PROVIDER": "openai", "OPENAI_BASE_URL": model.BaseURL(), "OPENAI_API_KEY": standalone.APIKey,
			"OPENAI_MODEL": "gpt-4.1-mini", "AGENT_TOOLS_FILE": toolsFile,
		},
	})

	t.Run("an MCP read and an idempotent MCP action whose answer is lost", func(t *testing.T) {
		const runID = "e2e-tools-mcp"
		waiting := startToApproval(t, s, queue, runID, ReviewInput(toolTimeout), "kv__put")
		require.Equal(t, `kv.put({"key":"greeting","value":"hello"})`, waiting.PendingAction.Preview)
		lookup := toolStep(waiting, "kv__lookup")
		require.NotNil(t, lookup, Describe(waiting))
		require.Equal(t, api.StepSucceeded, lookup.Status, lookup.Error)
		require.Contains(t, string(lookup.SafeOutput), `"found":false`, "the read ran against the server")
		require.Zero(t, readKV(t, statePath).Calls["greeting"], "nothing is written before approval")

		put := approveToSuccess(t, s, runID, waiting, "kv__put")
		st := readKV(t, statePath)
		require.True(t, st.Lost, "the first put died after its effect")
		require.Equal(t, "hello", st.Values["greeting"])
		require.Equal(t, 1, st.Applied["greeting"], "the effect exists once")
		require.Equal(t, 2, st.Calls["greeting"], "the lost call, then the repeat that reconciled it")
		require.Equal(t, []string{put.OperationKey, put.OperationKey}, st.OperationKeys["greeting"], "both under the step's operationKey")
		require.True(t, HasEvent(MustEvents(t, s.Client(), runID), api.EventRunStatus, string(api.RunReconciling)),
			"the lost answer was reconciled")
	})

	t.Run("an http_request tool whose answer is lost", func(t *testing.T) {
		const runID = "e2e-tools-http"
		in := ReviewInput(toolTimeout)
		in.Agent = "ops"
		waiting := startToApproval(t, s, queue, runID, in, "orders")
		require.NotContains(t, waiting.PendingAction.Preview, "s3cr3t", "the preview never shows the header")
		orders.mu.Lock()
		require.Zero(t, orders.orders, "nothing is ordered before approval")
		orders.mu.Unlock()

		step := approveToSuccess(t, s, runID, waiting, "orders")
		orders.mu.Lock()
		defer orders.mu.Unlock()
		require.Equal(t, 1, orders.orders, "the order exists once")
		require.GreaterOrEqual(t, len(orders.keys), 2, "the lost request was sent again")
		for i, key := range orders.keys {
			require.Equal(t, step.OperationKey, key, "request %d carries the step's operationKey", i)
			require.Equal(t, ordersSecret, orders.auth[i], "request %d carries the configured header", i)
		}
	})

	require.NotContains(t, worker.LogTail(), "s3cr3t", "the worker never logs a header's value")
	require.Contains(t, worker.LogTail(), "kv__put", "the worker says which tools its file added")
}

// startToApproval starts the run and waits until it asks approval for an
// action of tool.
func startToApproval(t *testing.T, s *Stack, queue, runID string, in api.RunInput, tool string) api.RunSnapshot {
	t.Helper()
	MustStartRun(t, s.Client(), queue, runID, in)
	waiting := WaitForStatus(t, s.Client(), runID, api.RunWaitingForUser, runTimeout)
	require.NotNil(t, waiting.PendingAction, Describe(waiting))
	require.Equal(t, tool, waiting.PendingAction.ToolName)
	return waiting
}

// approveToSuccess approves the action the run waits on, waits for the run
// to complete and is its step of tool, which succeeded.
func approveToSuccess(t *testing.T, s *Stack, runID string, waiting api.RunSnapshot, tool string) *api.AgentStep {
	t.Helper()
	require.NoError(t, Approve(t.Context(), s.Client(), runID, waiting.PendingAction.ID, "alice", runID))
	res := WaitForResult(t, s.Client(), runID, runTimeout)

	require.Equal(t, api.RunCompleted, res.Status)
	// The read of a run that has just ended replays its history on the
	// worker; on 2 busy cores one can outlast queryTimeout, so it is asked
	// again.
	var snap api.RunSnapshot
	require.EventuallyWithT(t, func(c *assert.CollectT) {
		var err error
		snap, err = Snapshot(t.Context(), s.Client(), runID)
		require.NoError(c, err)
	}, runTimeout, 100*time.Millisecond)
	step := toolStep(snap, tool)
	require.NotNil(t, step, Describe(snap))
	require.Equal(t, api.StepSucceeded, step.Status, step.Error)
	return step
}

// A worker whose tools file is wrong, or names an MCP server it cannot
// start, does not start: it names the file and where in it, before it
// polls anything, and never prints a header's value.
func TestWorkerWithABadToolsFileDoesNotStart(t *testing.T) {
	bins := builder.Binaries(t)
	kv := mcpkvBinary(t)
	dir := t.TempDir()
	grant := `"agents": [{"name": "pr-review"}]`
	for _, tc := range []struct {
		name, file, want string
		exitCode         int
	}{
		{"an unknown field", `{"mcpServers": [], "httpTool": []}`, `httpTool: unknown field "httpTool"`, 2},
		{"a server that cannot start", fmt.Sprintf(`{"mcpServers": [
			{"name": "kv", "command": [%q], "env": ["MCPKV_STATE=%s/kv.json"], %s},
			{"name": "gone", "command": ["%s/no-such-server"], %s}],
			"httpTools": [{"baseUrl": "http://127.0.0.1:1", "allowedPaths": ["/"], "headers": {"Authorization": %q}, %s}]}`,
			kv, dir, grant, dir, grant, ordersSecret, grant), `mcpServers[1]: connect to MCP server gone`, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "tools.json")
			require.NoError(t, os.WriteFile(path, []byte(tc.file), 0o600))

			res, err := RunCommand(t.Context(), bins.Worker, map[string]string{
				"TEMPORAL_ADDRESS": testkit.FreeAddress(t), "GITHUB_BOT_LOGIN": "agentrun-bot", "AGENT_TOOLS_FILE": path,
			})

			require.NoError(t, err)
			require.Equal(t, tc.exitCode, res.ExitCode, res.Stderr)
			require.Contains(t, res.Stderr, "tools file "+path+": "+tc.want)
			require.NotContains(t, res.Stderr+res.Stdout, "s3cr3t")
		})
	}
}
