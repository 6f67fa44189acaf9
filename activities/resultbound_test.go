package activities_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/agentrun/agentrun/activities"
	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/tools"
	"github.com/agentrun/agentrun/tools/httptool"
)

// cutNote is what the model reads of a result over the bound.
type cutNote struct {
	Truncated  bool   `json:"truncated"`
	Bytes      int    `json:"bytes"`
	SHA256     string `json:"sha256"`
	Note       string `json:"note"`
	ExternalID string `json:"externalId"`
	URL        string `json:"url"`
	Head       string `json:"head"`
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// hugeOrderServer answers every POST 201 with a 5 MB JSON body and the
// created order's Location, as an API that echoes a whole catalogue would.
func hugeOrderServer(t *testing.T, body []byte) *httptest.Server {
	t.Helper()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Location", "/api/v1/orders/ord-4711")
		w.WriteHeader(http.StatusCreated)
		_, _ = w.Write(body)
	}))
	t.Cleanup(s.Close)
	return s
}

// registryOf is a registry with just these tools, as a user's worker builds.
func registryOf(t *testing.T, actions []tools.Action, reads ...tools.Tool) *tools.Registry {
	t.Helper()
	reg := tools.NewRegistry()
	for _, a := range actions {
		require.NoError(t, reg.Add(a, tools.AlwaysAsk))
	}
	for _, r := range reads {
		require.NoError(t, reg.Add(r, tools.NeverAsk))
	}
	return reg
}

func TestHTTPAnswerOfFiveMegabytesIsCutWithItsSizeAndDigestAndKeepsTheOrdersURL(t *testing.T) {
	body := []byte(`{"items":["` + strings.Repeat("catalogue entry ", 5<<20/16) + `"]}`)
	s := hugeOrderServer(t, body)
	tool, err := httptool.New(httptool.Config{
		BaseURL: s.URL + "/api", AllowedPaths: []string{"/v1/orders"},
		// The operator let the model read big answers; the worker's bound
		// still holds.
		MaxResponseBytes: 8 << 20,
	})
	require.NoError(t, err)
	acts := &activities.Activities{Tools: registryOf(t, []tools.Action{tool})}
	args := json.RawMessage(`{"method":"POST","path":"/v1/orders","body":{"item":"book"}}`)
	in := api.ToolInput{Tool: httptool.DefaultName, Args: args, OperationKey: "run-1:4"}
	in.Approved, err = tool.Preview(tools.Call{Args: args})
	require.NoError(t, err)

	out, err := acts.ExecuteTool(context.Background(), in)

	require.NoError(t, err)
	require.LessOrEqual(t, len(out.Content), api.MaxToolResultBytes)
	var cut cutNote
	require.NoError(t, json.Unmarshal(out.Content, &cut), "the cut result is still JSON")
	assert.True(t, cut.Truncated)
	assert.Greater(t, cut.Bytes, 5<<20, "the size of the answer as the tool gave it")
	assert.Contains(t, cut.Note, "over this worker's bound", "the model is told it was cut")
	assert.Contains(t, cut.Note, "say what you did not see")
	assert.Contains(t, cut.Head, "catalogue entry catalogue entry")
	assert.Equal(t, s.URL+"/api/v1/orders/ord-4711", out.URL, "the proof of the order is never cut")
	assert.Equal(t, out.URL, cut.URL, "the model reads what was created")

	// The step record says so too.
	var step cutNote
	require.NoError(t, json.Unmarshal(out.SafeOutput, &step))
	assert.True(t, step.Truncated)
	assert.Equal(t, cut.Bytes, step.Bytes)
	assert.Equal(t, cut.SHA256, step.SHA256)
	assert.Equal(t, out.URL, step.URL, "the outcome finds the URL in the step's output")
	assert.Less(t, len(out.SafeOutput), 8<<10)
}

// bulkyTool is a user's tool whose answer the test chooses.
type bulkyTool struct {
	name string
	out  api.ToolOutput
	err  error
}

func (b bulkyTool) Spec() api.ToolSpec {
	return api.ToolSpec{Name: b.name, Description: "answers what the test says", Parameters: json.RawMessage(`{"type":"object"}`)}
}

func (b bulkyTool) Execute(context.Context, tools.Call) (api.ToolOutput, error) { return b.out, b.err }

// bulkyAction is a user's action whose answers the test chooses.
type bulkyAction struct {
	bulkyTool
	found api.ToolReconciliation
}

func (b bulkyAction) Spec() api.ToolSpec {
	s := b.bulkyTool.Spec()
	s.SideEffect = true
	return s
}
func (bulkyAction) Preview(tools.Call) (string, error) { return "export the report", nil }
func (bulkyAction) Touches(tools.Call) (string, error) { return "acme/widgets#1", nil }
func (b bulkyAction) Reconcile(context.Context, tools.Call) (api.ToolReconciliation, error) {
	return b.found, nil
}

func TestActionsHugeResultIsCutButItsExternalIDAndURLAreNotInExecuteNorReconcile(t *testing.T) {
	content, err := json.Marshal(map[string]string{"report": strings.Repeat("row\n", 3<<20)})
	require.NoError(t, err)
	out := api.ToolOutput{Content: content, ExternalID: "report-99", URL: "https://reports.example/99",
		Ignored: []api.IgnoredComment{{CommentID: 7, Author: "mallory", Why: "another author"}}}
	action := bulkyAction{bulkyTool: bulkyTool{name: "export_report", out: out},
		found: api.ToolReconciliation{Outcome: api.ReconcileFound, Output: out}}
	acts := &activities.Activities{Tools: registryOf(t, []tools.Action{action})}
	in := api.ToolInput{Tool: "export_report", Args: json.RawMessage(`{}`), OperationKey: "run-1:6", Approved: "export the report"}

	executed, err := acts.ExecuteTool(context.Background(), in)
	require.NoError(t, err)
	reconciled, err := acts.ReconcileTool(context.Background(), in)
	require.NoError(t, err)
	require.Equal(t, api.ReconcileFound, reconciled.Outcome)

	for name, got := range map[string]api.ToolOutput{"execute": executed, "reconcile": reconciled.Output} {
		assert.Equal(t, "report-99", got.ExternalID, name)
		assert.Equal(t, "https://reports.example/99", got.URL, name)
		assert.Equal(t, out.Ignored, got.Ignored, name)
		var cut cutNote
		require.NoError(t, json.Unmarshal(got.Content, &cut), name)
		assert.Equal(t, cutNote{Truncated: true, Bytes: len(content), SHA256: sha256Hex(content),
			Note: cut.Note, ExternalID: "report-99", URL: "https://reports.example/99", Head: cut.Head}, cut, name)
		assert.True(t, strings.HasPrefix(string(content), cut.Head), "%s: the head is the start of the content", name)
		assert.Greater(t, len(cut.Head), 256<<10, "%s: the model still reads most of what fits", name)
		assert.LessOrEqual(t, len(got.Content), api.MaxToolResultBytes, name)
	}
}

func TestResultWithinTheBoundIsUnchangedByteForByte(t *testing.T) {
	content := json.RawMessage(`{"rows":["` + strings.Repeat("é\u0001", 100<<10) + `"]}`)
	safe := json.RawMessage(`{"rows":"300 KiB of rows"}`)
	out := api.ToolOutput{Content: content, SafeOutput: safe, ExternalID: "r-1"}
	acts := &activities.Activities{Tools: registryOf(t, nil, bulkyTool{name: "read_rows", out: out})}

	got, err := acts.ExecuteTool(context.Background(), api.ToolInput{Tool: "read_rows", Args: json.RawMessage(`{}`)})

	require.NoError(t, err)
	require.Less(t, len(content), api.MaxToolResultBytes)
	assert.Equal(t, out, got)
}

func TestResultWithItsOwnStepOutputShowsTheCutButNoneOfTheContent(t *testing.T) {
	content, err := json.Marshal(map[string]string{"secretish": strings.Repeat("internal ", 1<<20)})
	require.NoError(t, err)
	out := api.ToolOutput{Content: content, SafeOutput: json.RawMessage(`{"summary":"one big document"}`)}
	acts := &activities.Activities{Tools: registryOf(t, nil, bulkyTool{name: "read_document", out: out})}

	got, err := acts.ExecuteTool(context.Background(), api.ToolInput{Tool: "read_document", Args: json.RawMessage(`{}`)})

	require.NoError(t, err)
	var step struct {
		cutNote
		SafeOutput json.RawMessage `json:"safeOutput"`
	}
	require.NoError(t, json.Unmarshal(got.SafeOutput, &step))
	assert.True(t, step.Truncated)
	assert.Equal(t, len(content), step.Bytes)
	assert.Equal(t, sha256Hex(content), step.SHA256)
	assert.JSONEq(t, `{"summary":"one big document"}`, string(step.SafeOutput))
	assert.NotContains(t, string(got.SafeOutput), "internal", "the step shows the tool's own output, not the content's head")
}

func TestHugeErrorTextIsCutAndKeepsItsTypeRetryabilityAndDelay(t *testing.T) {
	page := strings.Repeat("<html>stack trace</html>", 200<<10)
	for name, c := range map[string]struct {
		err          error
		errType      string
		nonRetryable bool
	}{
		"rejected":     {tools.Rejected("the server refused: "+page, nil), api.ErrTypeToolRejected, true},
		"rate limited": {tools.RateLimited("slow down: "+page, 9*time.Second, nil), api.ErrTypeRateLimited, false},
		"unknown":      {errors.New("no answer: " + page), "", false},
	} {
		acts := &activities.Activities{Tools: registryOf(t, nil, bulkyTool{name: "read_page", err: c.err})}

		_, err := acts.ExecuteTool(context.Background(), api.ToolInput{Tool: "read_page", Args: json.RawMessage(`{}`)})

		require.Error(t, err, name)
		assert.LessOrEqual(t, len(err.Error()), activities.MaxToolErrorBytes+256, name)
		assert.Contains(t, err.Error(), "sha256 "+sha256Hex([]byte(c.err.Error())), name)
		assert.True(t, strings.HasPrefix(err.Error(), c.err.Error()[:1024]), "%s: the error starts as the tool's did", name)
		var appErr *temporal.ApplicationError
		if c.errType == "" {
			assert.False(t, errors.As(err, &appErr) && appErr.NonRetryable(), "%s: still retryable", name)
			continue
		}
		require.True(t, errors.As(err, &appErr), name)
		assert.Equal(t, c.errType, appErr.Type(), name)
		assert.Equal(t, c.nonRetryable, appErr.NonRetryable(), name)
		if c.errType == api.ErrTypeRateLimited {
			var d api.RateLimitDetails
			require.NoError(t, appErr.Details(&d), name)
			assert.Equal(t, int64(9), d.RetryAfterSeconds, name)
		}
	}
}

func TestHugeReconcileReasonIsCut(t *testing.T) {
	action := bulkyAction{bulkyTool: bulkyTool{name: "export_report"},
		found: api.ToolReconciliation{Outcome: api.ReconcileCannotTell, Reason: "the search failed: " + strings.Repeat("x", 4<<20)}}
	acts := &activities.Activities{Tools: registryOf(t, []tools.Action{action})}

	res, err := acts.ReconcileTool(context.Background(), api.ToolInput{Tool: "export_report", Args: json.RawMessage(`{}`), OperationKey: "run-1:6", Approved: "export the report"})

	require.NoError(t, err)
	assert.Equal(t, api.ReconcileCannotTell, res.Outcome)
	assert.LessOrEqual(t, len(res.Reason), activities.MaxToolErrorBytes+256)
	assert.Contains(t, res.Reason, "cut: ")
}
