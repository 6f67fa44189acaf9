package runclient_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"google.golang.org/protobuf/proto"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/agentworker"

	"github.com/agentrun/agentrun/internal/testkit"
	"github.com/agentrun/agentrun/internal/testkit/standalone"
	"github.com/agentrun/agentrun/model/openai"
)

// The first answer: text, then a read of the pull request. The text is
// streamed a few bytes at a time and the stream holds after "I will read th".
const (
	writingFirstAnswer = `{"id":"chatcmpl-watch","object":"chat.completion","created":1752139201,"model":"gpt-4.1-mini-2025-04-14",
		"choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant",
		"content":"I will read the pull request before I say anything about it.",
		"tool_calls":[{"id":"call_watch_1","type":"function","function":{"name":"get_pull_request","arguments":"{\"note\":\"whole\"}"}}]}}],
		"usage":{"prompt_tokens":300,"completion_tokens":40,"total_tokens":340}}`
	writingFinalAnswer = `{"id":"chatcmpl-done","object":"chat.completion","created":1752139202,"model":"gpt-4.1-mini-2025-04-14",
		"choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"Nothing to post: the change is fine."}}],
		"usage":{"prompt_tokens":500,"completion_tokens":9,"total_tokens":509}}`
	writingHeldAt = "I will read th"
)

// The tests that take the shared dev server keep to queues and run IDs of
// their own and list nothing; those that list runs or need a server's
// options start their own.
func TestMain(m *testing.M) { testkit.RunTests(m) }

func TestWhatTheModelWritesIsReadThroughDescribeWhileItStreamsAndNeverEntersHistory(t *testing.T) {
	t.Parallel()
	testkit.NeedsDevServer(t)
	ctx := testContext(t)
	chunks, err := standalone.ChunksOf([]byte(writingFirstAnswer))
	require.NoError(t, err)
	held := heldAfter(t, chunks, writingHeldAt)
	reached, release := make(chan struct{}), make(chan struct{})
	fake := standalone.Start(t,
		standalone.Reply{Status: http.StatusOK, Stream: &standalone.Stream{Chunks: chunks, Before: func(i int) {
			if i == held {
				close(reached)
				<-release
			}
		}}},
		standalone.Reply{Status: http.StatusOK, Body: writingFinalAnswer},
	)
	released := false
	releaseOnce := func() {
		if !released {
			released = true
			close(release)
		}
	}
	t.Cleanup(releaseOnce) // before the fake closes: a failed test must not leave its handler waiting
	m, err := openai.New(openai.Config{BaseURL: fake.BaseURL(), APIKey: standalone.APIKey, Model: "gpt-4.1-mini"})
	require.NoError(t, err)

	s := testkit.StartStack(t, testkit.StackOptions{SharedServer: true})
	queue := testkit.Unique(t, "watch-the-model")
	acts := s.Activities(m)
	acts.WritingInterval = 50 * time.Millisecond
	w := agentworker.NewWithActivities(s.Client(), queue, acts)
	require.NoError(t, w.Start())
	t.Cleanup(w.Stop)
	rc := s.Runs()

	run := s.StartReview(t, queue)
	<-reached
	var writing string
	require.Eventually(t, func() bool {
		writing, err = rc.ModelWriting(ctx, run.GetID())
		return err == nil && writing == writingHeldAt
	}, time.Minute, 20*time.Millisecond, "exactly what was streamed so far reaches the pending activity while the stream holds")
	require.NoError(t, err)
	releaseOnce()

	res := s.WaitForResult(t, run)
	require.Equal(t, api.RunCompleted, res.Status)
	require.Equal(t, "Nothing to post: the change is fine.", res.Answer)
	after, err := rc.ModelWriting(ctx, run.GetID())
	require.NoError(t, err)
	require.Empty(t, after, "nothing is written once no model call is in flight")

	history, decision := historyOf(ctx, t, s, run.GetID())
	require.True(t, bytes.Contains(history, []byte("before I say anything about it")), "the search sees the history's payloads")
	require.False(t, bytes.Contains(history, []byte(`"writing"`)), "no heartbeat detail is in the history")
	whole := nonStreamedDecision(t, writingFirstAnswer)
	require.Equal(t, whole, decision, "the streamed decision is the one a whole answer makes, tool call included")
	require.Len(t, decision.ToolCalls, 1)
}

// heldAfter is the index of the chunk after the one that completes text.
func heldAfter(t *testing.T, chunks []string, text string) int {
	t.Helper()
	var sofar strings.Builder
	for i, chunk := range chunks {
		var c struct {
			Choices []struct {
				Delta struct {
					Content string `json:"content"`
				} `json:"delta"`
			} `json:"choices"`
		}
		require.NoError(t, json.Unmarshal([]byte(chunk), &c))
		if len(c.Choices) > 0 {
			sofar.WriteString(c.Choices[0].Delta.Content)
		}
		if sofar.String() == text {
			return i + 1
		}
	}
	t.Fatalf("the chunks never complete %q on a chunk boundary (so far %q)", text, sofar.String())
	return 0
}

// historyOf is the run's whole history as bytes, and the result of its
// first ModelNext.
func historyOf(ctx context.Context, t *testing.T, s *testkit.Stack, runID string) ([]byte, api.ModelDecision) {
	t.Helper()
	var all []byte
	var first api.ModelDecision
	found := false
	iter := s.Client().GetWorkflowHistory(ctx, runID, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for iter.HasNext() {
		event, err := iter.Next()
		require.NoError(t, err)
		raw, err := proto.Marshal(event)
		require.NoError(t, err)
		all = append(all, raw...)
		if done := event.GetActivityTaskCompletedEventAttributes(); done != nil && !found {
			payloads := done.GetResult().GetPayloads()
			require.Len(t, payloads, 1)
			if json.Unmarshal(payloads[0].GetData(), &first) == nil && first.Model != "" {
				found = true
			}
		}
	}
	require.True(t, found, "the history holds the ModelNext result")
	return all, first
}

func nonStreamedDecision(t *testing.T, body string) api.ModelDecision {
	t.Helper()
	fake := standalone.Start(t, standalone.Reply{Status: http.StatusOK, Body: body})
	m, err := openai.New(openai.Config{BaseURL: fake.BaseURL(), APIKey: standalone.APIKey, Model: "gpt-4.1-mini"})
	require.NoError(t, err)
	d, err := m.Next(context.Background(), []api.Message{{Role: api.RoleUser, Content: "Review acme/widgets#1."}}, nil)
	require.NoError(t, err)
	return d
}
