package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/testkit/standalone"
)

// reviewOnlyModel is an OpenAI-compatible provider that plays a reviewer
// who only ever posts a pull request review: the built-in pr-review agent
// offers both the comment and the review, and the offline model always
// takes the comment. It decides from the conversation alone, so a model call
// retried after a worker was killed gets the same answer.
func reviewOnlyModel(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Stream   bool `json:"stream"`
			Messages []struct {
				Role      string `json:"role"`
				ToolCalls []struct {
					Function struct {
						Name string `json:"name"`
					} `json:"function"`
				} `json:"tool_calls"`
			} `json:"messages"`
			Tools []struct {
				Function struct {
					Name string `json:"name"`
				} `json:"function"`
			} `json:"tools"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
			return
		}
		var called, offered []string
		for _, m := range req.Messages {
			for _, c := range m.ToolCalls {
				called = append(called, c.Function.Name)
			}
		}
		for _, tool := range req.Tools {
			offered = append(offered, tool.Function.Name)
		}
		var message string
		switch {
		case !slices.Contains(offered, api.ToolCreatePullRequestReview):
			message = `{"role":"assistant","content":"The review tool is not offered."}`
		case !slices.Contains(called, api.ToolGetPullRequest):
			message = toolCallMessage("call_read_pr", api.ToolGetPullRequest, `{}`)
		case !slices.Contains(called, api.ToolCreatePullRequestReview):
			message = toolCallMessage("call_review", api.ToolCreatePullRequestReview,
				`{"body":"The fault suite's review: looks fine.","event":"COMMENT"}`)
		default:
			message = `{"role":"assistant","content":"Posted the review."}`
		}
		completion := fmt.Sprintf(`{"id":"chatcmpl-e2e","object":"chat.completion","created":1752139201,"model":"e2e-model",`+
			`"choices":[{"index":0,"message":%s,"finish_reason":"stop"}],`+
			`"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15}}`, message)
		if !req.Stream {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(completion))
			return
		}
		// The provider streams; the same completion goes out as OpenAI's chunks.
		chunks, err := standalone.ChunksOf([]byte(completion))
		if err != nil {
			http.Error(w, `{"error":{"message":"bad completion"}}`, http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		for _, c := range append(chunks, "[DONE]") {
			fmt.Fprintf(w, "data: %s\n\n", c)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func toolCallMessage(id, name, args string) string {
	quoted, _ := json.Marshal(args) // a string always marshals
	return fmt.Sprintf(`{"role":"assistant","content":null,"tool_calls":[{"id":%q,"type":"function",`+
		`"function":{"name":%q,"arguments":%s}}]}`, id, name, quoted)
}
