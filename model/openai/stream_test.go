package openai

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/agentrun/agentrun/internal/testkit/reviewtools"

	"github.com/agentrun/agentrun/internal/testkit/standalone"
)

func TestStreamedAnswerIsTheSameDecisionAsTheWholeOneForEveryRecordedAnswer(t *testing.T) {
	for _, fixture := range []string{"tool_calls.json", "comment_call.json", "final_answer.json", "malformed_arguments.json"} {
		t.Run(fixture, func(t *testing.T) {
			whole, err := newFakeOpenAI(t, okReply(fixture)).model().Next(context.Background(), reviewConversation(), reviewtools.Tools())
			require.NoError(t, err)

			fake := newFakeOpenAI(t, okReply(fixture))
			var written []string
			streamed, err := fake.model().Stream(context.Background(), reviewConversation(), reviewtools.Tools(),
				func(text string) { written = append(written, text) })

			require.NoError(t, err)
			require.Equal(t, whole, streamed, "tool calls, arguments, text, usage and model must survive the chunks")
			_, body := fake.onlyRequest()
			require.Equal(t, true, body["stream"])
			require.Equal(t, map[string]any{"include_usage": true}, body["stream_options"])
			if whole.Final == "" {
				require.Empty(t, written, "an answer without text writes nothing")
				return
			}
			require.Greater(t, len(written), 1, "the text arrives in pieces")
			for i := 1; i < len(written); i++ {
				require.True(t, strings.HasPrefix(written[i], written[i-1]), "each report is the text so far")
			}
			require.Equal(t, whole.Final, written[len(written)-1])
		})
	}
}

func TestStreamedRefusalIsWrittenAndBecomesTheSameFinalAnswer(t *testing.T) {
	const refusal = `{"id":"chatcmpl-r","object":"chat.completion","created":1752139201,"model":"gpt-4.1-mini-2025-04-14",
		"choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":null,"refusal":"I can't help with that request."}}],
		"usage":{"prompt_tokens":120,"completion_tokens":8,"total_tokens":128}}`
	var last string
	d, err := newFakeOpenAI(t, reply{status: http.StatusOK, body: refusal}).model().Stream(context.Background(),
		reviewConversation(), reviewtools.Tools(), func(text string) { last = text })

	require.NoError(t, err)
	require.Equal(t, "The model refused: I can't help with that request.", d.Final)
	require.Equal(t, "I can't help with that request.", last)
}

func TestStreamedCallIsRateLimitedLikeAWholeOne(t *testing.T) {
	fake := newFakeOpenAI(t, reply{status: http.StatusTooManyRequests,
		header: map[string]string{"Retry-After": "7"}, fixture: "error_429_rate_limit.json"})

	_, err := fake.model().Stream(context.Background(), reviewConversation(), reviewtools.Tools(), nil)

	var appErr *temporal.ApplicationError
	require.True(t, errors.As(err, &appErr), "want an application error, got %T: %v", err, err)
	require.Equal(t, ErrTypeModelRateLimited, appErr.Type())
	require.Contains(t, appErr.Error(), "code rate_limit_exceeded")
	require.NotContains(t, appErr.Error(), testOpenAIKey)
	fake.onlyRequest()
}

func TestStreamOfChunksFromTwoCompletionsFails(t *testing.T) {
	one, other := standalone.Chunk{ID: "chatcmpl-one", Model: "m"}, standalone.Chunk{ID: "chatcmpl-other", Model: "m"}
	fake := standalone.Start(t, standalone.Reply{Status: http.StatusOK, Stream: &standalone.Stream{
		Chunks: []string{one.Content("Looks "), other.Content("fine"), one.Finish("stop")},
	}})
	m, err := New(Config{BaseURL: fake.BaseURL(), APIKey: testOpenAIKey, Model: "m"})
	require.NoError(t, err)

	_, err = m.Stream(context.Background(), reviewConversation(), reviewtools.Tools(), nil)

	require.ErrorContains(t, err, "does not continue the answer")
}

// An OpenAI-compatible server that does not stream (it answers a streamed
// request with one JSON completion) still gets its answer used: the call is
// asked again whole once, and that server is asked whole from then on,
// instead of every model call failing with "no choices" until it times out.
func TestAServerThatDoesNotStreamIsAskedWholeAndItsAnswerUsed(t *testing.T) {
	const answer = `{"id":"chatcmpl-w","object":"chat.completion","created":1752139201,"model":"local",
		"choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"Looks fine."}}],
		"usage":{"prompt_tokens":12,"completion_tokens":3,"total_tokens":15}}`
	var streamed, whole atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Stream bool `json:"stream"`
		}
		_ = json.NewDecoder(r.Body).Decode(&body)
		if body.Stream {
			streamed.Add(1)
		} else {
			whole.Add(1)
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(answer))
	}))
	t.Cleanup(srv.Close)
	m, err := New(Config{BaseURL: srv.URL, APIKey: testOpenAIKey, Model: "local"})
	require.NoError(t, err)

	for range 2 {
		d, err := m.Stream(context.Background(), reviewConversation(), reviewtools.Tools(), nil)
		require.NoError(t, err)
		require.Equal(t, "Looks fine.", d.Final)
	}
	require.EqualValues(t, 1, streamed.Load(), "only the first call is asked as a stream")
	require.EqualValues(t, 2, whole.Load())
}
