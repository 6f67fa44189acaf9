package workflows

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"github.com/agentrun/agentrun/activities"
	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/ghsandbox"
	"github.com/agentrun/agentrun/model"
	"github.com/agentrun/agentrun/model/offline"
)

// A model call is an activity the server schedules until an answer says
// the worker's model has nothing to stream; the calls after it are local
// activities, with the same steps.

// streamingReviewer is the offline reviewer behind the Stream method a
// streaming provider (model/openai) has: ModelNext heartbeats what it
// writes, so its calls must stay activities.
type streamingReviewer struct{ model.Model }

func (s streamingReviewer) Stream(ctx context.Context, conversation []api.Message, tools []api.ToolSpec, writing func(string)) (api.ModelDecision, error) {
	d, err := s.Next(ctx, conversation, tools)
	if err == nil {
		writing(d.Final)
	}
	return d, err
}

// failingCall is the offline reviewer whose call-th call fails with err.
type failingCall struct {
	model.Model
	call  int64
	err   error
	calls atomic.Int64
}

func (*failingCall) AnswersAtOnce() bool { return true }

func (f *failingCall) Next(ctx context.Context, conversation []api.Message, tools []api.ToolSpec) (api.ModelDecision, error) {
	if f.calls.Add(1) == f.call {
		return api.ModelDecision{}, f.err
	}
	return f.Model.Next(ctx, conversation, tools)
}

func newModelHarness(t *testing.T, m model.Model) (*harness, *activities.Activities) {
	t.Helper()
	var suite testsuite.WorkflowTestSuite
	sandbox := ghsandbox.New(ghsandbox.DefaultFixture())
	acts := &activities.Activities{GitHub: sandboxGitHub(t, sandbox), Model: m}
	return &harness{t: t, env: newRunEnv(&suite, builtin.AgentRun, acts), sandbox: sandbox}, acts
}

func TestAModelWithNothingToStreamMakesTheRunsLaterCallsLocalActivities(t *testing.T) {
	h, _ := newModelHarness(t, offline.NewReviewer())
	log := h.logCommands()
	h.approveAs("alice")
	h.run(demoInput())
	require.NoError(t, h.env.GetWorkflowError())

	require.Equal(t, []string{"Ask the model for the next step of the run on acme/widgets#1 (call 1)"}, log.activitySummaries(api.ActivityModelNext),
		"only the first call, before any answer said the model does not stream, goes to the server")
	require.Equal(t, 3, log.attemptCount(api.ActivityModelNext), "each call ran once")
	snap := h.snapshot()
	steps := modelSteps(snap)
	require.Len(t, steps, 3)
	for _, st := range steps {
		require.Equal(t, api.StepSucceeded, st.Status, st.ID)
		require.NotEmpty(t, st.SafeOutput, "%s keeps its step record", st.ID)
		require.NotNil(t, st.Usage, st.ID)
	}
	require.Equal(t, 1, h.markedComments())
	requireLegalHistory(t, h.events())
}

func TestAStreamingModelKeepsEveryCallAnActivity(t *testing.T) {
	h, _ := newModelHarness(t, streamingReviewer{offline.NewReviewer()})
	log := h.logCommands()
	h.approveAs("alice")
	h.run(demoInput())
	require.NoError(t, h.env.GetWorkflowError())

	require.Len(t, log.activitySummaries(api.ActivityModelNext), 3, "its heartbeats carry what it writes")
	require.Equal(t, 3, log.attemptCount(api.ActivityModelNext))
	require.Len(t, modelSteps(h.snapshot()), 3)
	require.Equal(t, 1, h.markedComments())
}

// switchingModel answers as the offline reviewer, then the worker's model
// becomes a streaming one, as a deploy that changes MODEL_PROVIDER would.
type switchingModel struct {
	model.Model
	acts *activities.Activities
}

func (switchingModel) AnswersAtOnce() bool { return true }

func (s switchingModel) Next(ctx context.Context, conversation []api.Message, tools []api.ToolSpec) (api.ModelDecision, error) {
	d, err := s.Model.Next(ctx, conversation, tools)
	s.acts.Model = streamingReviewer{s.Model}
	return d, err
}

func TestAModelThatBeginsToStreamMidRunTakesTheNextCallBackToTheServer(t *testing.T) {
	h, acts := newModelHarness(t, nil)
	acts.Model = switchingModel{Model: offline.NewReviewer(), acts: acts}
	log := h.logCommands()
	h.approveAs("alice")
	h.run(demoInput())
	require.NoError(t, h.env.GetWorkflowError())

	// Call 1 said "local"; call 2 ran locally on the streaming model and
	// said otherwise, so call 3 is an activity again.
	require.Equal(t, []string{
		"Ask the model for the next step of the run on acme/widgets#1 (call 1)",
		"Ask the model for the next step of the run on acme/widgets#1 (call 3)",
	}, log.activitySummaries(api.ActivityModelNext))
	require.Equal(t, 3, log.attemptCount(api.ActivityModelNext))
	require.Equal(t, 1, h.markedComments())
}

func TestALocalModelCallThatFailsIsRetriedByTheServerOnTheSameBackoff(t *testing.T) {
	h, _ := newModelHarness(t, &failingCall{Model: offline.NewReviewer(), call: 2, err: errors.New("connection reset by peer")})
	log := h.logCommands()
	h.approveAs("alice")
	h.run(demoInput())
	require.NoError(t, h.env.GetWorkflowError())

	require.Equal(t, []string{
		"Ask the model for the next step of the run on acme/widgets#1 (call 1)",
		"Ask the model for the next step of the run on acme/widgets#1 (call 2)",
	}, log.activitySummaries(api.ActivityModelNext), "one activity carries the tries after the local one")
	require.Equal(t, 4, log.attemptCount(api.ActivityModelNext))
	require.Equal(t, time.Second, modelAttemptGap(log, 1), "the local try, then the activity after ModelCall's first backoff")
	steps := modelSteps(h.snapshot())
	require.Len(t, steps, 3)
	for _, st := range steps {
		require.Equal(t, api.StepSucceeded, st.Status, st.ID)
	}
	var notes []string
	for _, ev := range h.events() {
		if ev.StepID == steps[1].ID && strings.HasPrefix(ev.Detail, "try 1 failed: ") {
			notes = append(notes, ev.Detail)
		}
	}
	require.Len(t, notes, 1, "the local try's failure is one of the step's events")
	require.Contains(t, notes[0], "connection reset by peer")
	require.Equal(t, 1, h.markedComments())
	requireLegalHistory(t, h.events())
}

func TestALocalModelCallTheProviderRefusesIsTriedOnceAndFailsItsStep(t *testing.T) {
	refusal := temporal.NewNonRetryableApplicationError("the model refused the request", api.ErrTypeModelRejected, nil)
	h, _ := newModelHarness(t, &failingCall{Model: offline.NewReviewer(), call: 2, err: refusal})
	log := h.logCommands()
	h.runFailing(demoInput(), "model call failed")

	require.Len(t, log.activitySummaries(api.ActivityModelNext), 1)
	require.Equal(t, 2, log.attemptCount(api.ActivityModelNext), "a refusal is final")
	steps := modelSteps(h.snapshot())
	require.Len(t, steps, 2)
	require.Equal(t, api.StepFailed, steps[1].Status)
	require.Contains(t, steps[1].Error, "the model refused the request")
	require.Equal(t, 0, h.markedComments())
}

// modelAttemptGap is the time between the run's i-th and i+1-th model
// attempts, local or not.
func modelAttemptGap(l *commandLog, i int) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	var at []time.Time
	for _, a := range l.attempts {
		if a.Name == api.ActivityModelNext {
			at = append(at, a.At)
		}
	}
	return at[i+1].Sub(at[i])
}

// readingModel asks for get_pull_request until the conversation holds
// reads tool results, then answers.
type readingModel struct{ reads int }

func (readingModel) AnswersAtOnce() bool { return true }

func (m readingModel) Next(_ context.Context, conversation []api.Message, _ []api.ToolSpec) (api.ModelDecision, error) {
	done := 0
	for _, msg := range conversation {
		if msg.Role == api.RoleTool {
			done++
		}
	}
	if done >= m.reads {
		return api.ModelDecision{Final: fmt.Sprintf("read %d times", done)}, nil
	}
	return api.ModelDecision{ToolCalls: []api.ToolCall{{ID: fmt.Sprintf("call_%d", done), Name: api.ToolGetPullRequest, Arguments: []byte(`{}`)}}}, nil
}

// Reads and model calls that are all local would chain in one workflow
// task for as long as the model reads, and the run's queries and its
// continue-as-new check wait for a task's end: a local call follows only
// a wait on the server.
func TestALocalModelCallNeverFollowsAnotherWithoutAWaitOnTheServer(t *testing.T) {
	h, _ := newModelHarness(t, readingModel{reads: 4})
	log := h.logCommands()
	h.run(demoInput())
	require.NoError(t, h.env.GetWorkflowError())

	var calls []string
	for _, summary := range log.activitySummaries(api.ActivityModelNext) {
		calls = append(calls, summary[strings.LastIndex(summary, "(call"):])
	}
	require.Equal(t, []string{"(call 1)", "(call 3)", "(call 5)"}, calls, "calls 2 and 4 ran locally")
	require.Equal(t, 5, log.attemptCount(api.ActivityModelNext))
	steps := modelSteps(h.snapshot())
	require.Len(t, steps, 5)
	for _, st := range steps {
		require.Equal(t, api.StepSucceeded, st.Status, st.ID)
	}
}

// A local model call carries the conversation itself, however long it has
// grown: its input is no part of the history, and the reference a scheduled
// call carries would need the handoff or the conversation query, which
// waits behind the workflow task the local call holds. This run's
// activities have neither (the testsuite's), and its conversation is past
// the inline bound from the second call on.
func TestALocalModelCallCarriesItsConversationInlineAndNeedsNoHandoff(t *testing.T) {
	h, _ := newModelHarness(t, offline.NewReviewer())
	h.approveAs("alice")
	in := demoInput()
	in.InlineConversationBytes = 0 // the default: a reference past 1 KiB
	h.run(in)
	require.NoError(t, h.env.GetWorkflowError())

	snap := h.snapshot()
	steps := modelSteps(snap)
	require.Len(t, steps, 3)
	require.Contains(t, string(steps[1].SafeInput), "conversationDigest", "the second call's conversation is past the inline bound")
	for _, st := range steps {
		require.Equal(t, api.StepSucceeded, st.Status, "%s: %s", st.ID, st.Error)
	}
	for _, e := range h.events() {
		require.NotContains(t, e.Detail, "try 1 failed", "no local try fell back to the server")
	}
	require.Equal(t, 1, h.markedComments())
}
