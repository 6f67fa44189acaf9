package workflows

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/testsuite"

	"github.com/agentrun/agentrun/activities"
	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/ghsandbox"
	"github.com/agentrun/agentrun/model/offline"
)

// holdsReader answers the holds workflow's query with the view a test sets,
// through the real CheckHolds activity.
type holdsReader struct {
	mu    sync.Mutex
	view  api.HoldsView
	reads int
	// lapseAfter, when set, answers no holds after that many reads: a run
	// that looks again without waiting then frees itself instead of
	// keeping the test's clock from ever moving.
	lapseAfter int
}

func (r *holdsReader) readCount() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.reads
}

func (r *holdsReader) set(v api.HoldsView) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.view = v
}

func (r *holdsReader) QueryWorkflow(_ context.Context, workflowID, _, queryType string, _ ...any) (converter.EncodedValue, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reads++
	if !strings.HasPrefix(workflowID, api.HoldsWorkflowID("")) || queryType != api.QueryHolds {
		return nil, context.DeadlineExceeded
	}
	view := r.view
	if r.lapseAfter > 0 && r.reads > r.lapseAfter {
		view = api.HoldsView{}
	}
	b, err := json.Marshal(view)
	return jsonValue(b), err
}

type jsonValue []byte

func (v jsonValue) HasValue() bool     { return len(v) > 0 }
func (v jsonValue) Get(into any) error { return json.Unmarshal(v, into) }

// newHeldHarness is the harness whose runs read holds from reader, and
// whose signals to the holds workflow (a held run's waiter) are mocked.
func newHeldHarness(t *testing.T, reader *holdsReader) *harness {
	t.Helper()
	var suite testsuite.WorkflowTestSuite
	sandbox := ghsandbox.New(ghsandbox.DefaultFixture())
	acts := &activities.Activities{GitHub: sandboxGitHub(t, sandbox), Model: offline.NewReviewer(), Runs: reader}
	h := &harness{t: t, env: newRunEnv(&suite, builtin.AgentRun, acts), sandbox: sandbox}
	h.env.OnSignalExternalWorkflow(mock.Anything, mock.MatchedBy(func(id string) bool {
		return strings.HasPrefix(id, api.HoldsWorkflowID(""))
	}), "", api.SignalHoldWaiter, mock.Anything).Return(nil)
	return h
}

func holdOn(sel api.HoldSelector) api.HoldsView {
	return api.HoldsView{Active: []api.Hold{{Selector: sel, By: "ops-oncall", Reason: "bad deploy", At: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}}}
}

func TestAnApprovedActionWaitsWhileAHoldMatchesItsAgentAndPostsOnceOnRelease(t *testing.T) {
	reader := &holdsReader{}
	reader.set(holdOn(api.HoldSelector{Agent: api.DefaultAgent}))
	reader.lapseAfter = 200
	h := newHeldHarness(t, reader)
	in := demoInput()
	in.Approvers = []string{"alice"}
	h.whenWaiting(time.Minute, func(id string) { h.decide(id, api.DecisionApprove, "alice", "") })
	// Hours later, past many rechecks, the run still has not posted.
	heldReads := 0
	h.env.RegisterDelayedCallback(func() {
		heldReads = reader.readCount()
		snap := h.snapshot()
		require.Equal(t, "held by ops: bad deploy", snap.Label)
		require.Equal(t, api.RunRunning, snap.Run.Status)
		st := h.commentStep(snap)
		require.Equal(t, api.StepRunning, st.Status)
		require.Zero(t, h.markedComments())
		reader.set(api.HoldsView{})
		h.env.SignalWorkflow(api.SignalHoldsReleased, nil)
	}, 3*time.Hour)
	h.run(in)

	snap := h.snapshot()
	require.Equal(t, api.RunCompleted, snap.Run.Status)
	st := h.commentStep(snap)
	require.Equal(t, api.StepSucceeded, st.Status)
	require.Equal(t, 1, st.Attempt)
	require.Equal(t, 1, h.markedComments())
	held := eventsWith(h.events(), func(e api.Event) bool { return strings.HasPrefix(e.Detail, "held by ops: bad deploy") })
	require.NotEmpty(t, held)
	released := eventsWith(h.events(), func(e api.Event) bool { return e.Detail == "hold released; sending" })
	require.Len(t, released, 1, "the release is told once, on the step")
	require.Contains(t, held[0].Detail, "hold on agent pr-review by ops-oncall")
	requireLegalHistory(t, h.events())
	// Held from its approval at one minute: the first look, then one every
	// 10 minutes (docs/operations.md; the safety net when a release's
	// signal is missed).
	require.InDelta(t, 1+int((3*time.Hour-time.Minute)/(10*time.Minute)), heldReads, 1, "looked again every 10 minutes while held")
}

func TestAHoldOnAnotherAgentToolOrTargetDoesNotStopTheAction(t *testing.T) {
	for _, sel := range []api.HoldSelector{{Agent: "triage"}, {Tool: api.ToolCreateIssue}, {Target: "acme/widgets#2"}, {Target: "acme/gadgets"}} {
		t.Run(sel.String(), func(t *testing.T) {
			reader := &holdsReader{}
			reader.set(holdOn(sel))
			h := newHeldHarness(t, reader)
			in := demoInput()
			in.Approvers = []string{"alice"}
			h.whenWaiting(time.Minute, func(id string) { h.decide(id, api.DecisionApprove, "alice", "") })
			h.run(in)
			require.Equal(t, api.RunCompleted, h.snapshot().Run.Status)
			require.Equal(t, 1, h.markedComments())
			require.Empty(t, eventsWith(h.events(), func(e api.Event) bool { return strings.HasPrefix(e.Detail, "hold") }),
				"a run no hold stopped says nothing of holds")
		})
	}
}

func TestAHoldOnTheRepositoryOrTheToolStopsTheAction(t *testing.T) {
	// As an operator may type them too: a hold's case and spaces do not
	// change what it names (api.HoldSelector.Matches).
	for _, sel := range []api.HoldSelector{
		{Tool: api.ToolCreateIssueComment}, {Target: "acme/widgets"}, {Target: "acme/widgets#1"},
		{Target: "Acme/Widgets"}, {Target: "acme/widgets "}, {Agent: "PR-Review"},
	} {
		t.Run(sel.String(), func(t *testing.T) {
			reader := &holdsReader{}
			reader.set(holdOn(sel))
			h := newHeldHarness(t, reader)
			in := demoInput()
			in.Approvers = []string{"alice"}
			h.whenWaiting(time.Minute, func(id string) { h.decide(id, api.DecisionApprove, "alice", "") })
			// Seen in the callback, checked after the run: a failed check
			// inside the callback would stop it before the cancel, and the
			// run would never end.
			var heldLabel string
			h.env.RegisterDelayedCallback(func() {
				heldLabel = h.snapshot().Label
				require.Zero(t, h.markedComments())
				h.cancelAs("alice", "the deploy is bad", "c1")
			}, time.Hour)
			h.run(in)
			require.Equal(t, "held by ops: bad deploy", heldLabel)
			snap := h.snapshot()
			require.Equal(t, api.RunCancelled, snap.Run.Status)
			st := h.commentStep(snap)
			require.Equal(t, api.StepFailed, st.Status)
			require.Contains(t, st.Error, "not attempted")
			require.Zero(t, h.markedComments())
		})
	}
}

func TestHoldsThatCannotBeReadHoldTheActionUntilTheyCanBe(t *testing.T) {
	reader := &unreadableHolds{}
	var suite testsuite.WorkflowTestSuite
	sandbox := ghsandbox.New(ghsandbox.DefaultFixture())
	acts := &activities.Activities{GitHub: sandboxGitHub(t, sandbox), Model: offline.NewReviewer(), Runs: reader}
	h := &harness{t: t, env: newRunEnv(&suite, builtin.AgentRun, acts), sandbox: sandbox}
	in := demoInput()
	in.Approvers = []string{"alice"}
	h.whenWaiting(time.Minute, func(id string) { h.decide(id, api.DecisionApprove, "alice", "") })
	h.env.RegisterDelayedCallback(func() {
		require.Equal(t, "held: the holds could not be read", h.snapshot().Label)
		require.Zero(t, h.markedComments())
		reader.mu.Lock()
		reader.readable = true
		reader.mu.Unlock()
	}, 10*time.Minute)
	h.run(in)
	require.Equal(t, api.RunCompleted, h.snapshot().Run.Status)
	require.Equal(t, 1, h.markedComments())
}

// unreadableHolds fails every read of the holds until readable, then
// answers none.
type unreadableHolds struct {
	mu       sync.Mutex
	readable bool
}

func (r *unreadableHolds) QueryWorkflow(context.Context, string, string, string, ...any) (converter.EncodedValue, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.readable {
		return nil, context.DeadlineExceeded
	}
	return jsonValue(`{"active":[]}`), nil
}

// A held run that cannot tell the holds workflow it waits would not hear
// of the release: it looks again as soon as a run that cannot read the
// holds does, not at the slow recheck, and never sends meanwhile.
func TestAHeldRunThatCannotAskToBeToldOfTheReleaseLooksAgainSoon(t *testing.T) {
	reader := &holdsReader{}
	reader.set(holdOn(api.HoldSelector{Agent: api.DefaultAgent}))
	reader.lapseAfter = 200
	var suite testsuite.WorkflowTestSuite
	sandbox := ghsandbox.New(ghsandbox.DefaultFixture())
	acts := &activities.Activities{GitHub: sandboxGitHub(t, sandbox), Model: offline.NewReviewer(), Runs: reader}
	h := &harness{t: t, env: newRunEnv(&suite, builtin.AgentRun, acts), sandbox: sandbox}
	h.env.OnSignalExternalWorkflow(mock.Anything, mock.Anything, "", api.SignalHoldWaiter, mock.Anything).Return(
		errors.New("the holds workflow is not running"))
	in := demoInput()
	in.Approvers = []string{"alice"}
	h.whenWaiting(time.Minute, func(id string) { h.decide(id, api.DecisionApprove, "alice", "") })
	readsWhenHeld, looks := -1, -1
	var label string
	h.env.RegisterDelayedCallback(func() { readsWhenHeld = reader.readCount() }, time.Minute+time.Second)
	h.env.RegisterDelayedCallback(func() {
		label, looks = h.snapshot().Label, reader.readCount()-readsWhenHeld
		require.Zero(t, h.markedComments())
		reader.set(api.HoldsView{})
	}, time.Minute+time.Second+5*time.Minute)
	h.run(in)
	require.Equal(t, "held by ops: bad deploy", label)
	// 30 s apart (holdUnreadableRecheck), not 10 minutes.
	require.InDelta(t, int(5*time.Minute/(30*time.Second)), looks, 1, "looked again every 30s")
	require.Equal(t, api.RunCompleted, h.snapshot().Run.Status)
	require.Equal(t, 1, h.markedComments())
}

// A hold on a target stops an action on the run's target, and on the one
// the action touches when that is another.
func TestAnActionIsCheckedAgainstTheHoldsOnEveryTargetItTouches(t *testing.T) {
	require.Equal(t, []string{"acme/widgets#1"}, holdTargets("acme/widgets#1", ""))
	require.Equal(t, []string{"acme/widgets#1"}, holdTargets("acme/widgets#1", "acme/widgets#1"))
	require.Equal(t, []string{"acme/widgets#1", "acme/gadgets#7"}, holdTargets("acme/widgets#1", "acme/gadgets#7"))
}

// A held run's check run, public wherever the pull request is, says that
// an operator holds it, never the operator's reason: that stays on the
// run's page and in its events.
func TestAHeldRunsCheckRunShowsTheHoldWithoutTheOperatorsReason(t *testing.T) {
	reader := &holdsReader{}
	view := holdOn(api.HoldSelector{Agent: api.DefaultAgent})
	view.Active[0].Reason = "incident INC-4711: the model leaks vault paths"
	reader.set(view)
	h := newHeldHarness(t, reader)
	in := checkInput()
	in.Approvers = []string{"alice"}
	h.approveAsAlice()
	h.env.RegisterDelayedCallback(func() {
		require.Equal(t, "held by ops: incident INC-4711: the model leaks vault paths", h.snapshot().Label)
		reader.set(api.HoldsView{})
		h.env.SignalWorkflow(api.SignalHoldsReleased, nil)
	}, time.Hour)
	h.run(in)

	require.Equal(t, api.RunCompleted, h.snapshot().Run.Status)
	require.Equal(t, 1, h.markedComments())
	checks := h.sandbox.CheckRuns("acme", "widgets", demoHead)
	require.Len(t, checks, 1)
	shown := strings.Join(checks[0].Shown, "\n")
	require.Contains(t, shown, "in_progress: "+api.LabelHeld, shown)
	require.NotContains(t, shown, "INC-4711", shown)
	held := checkWant(&api.Checkpoint{Run: api.Run{ID: "r1", Status: api.RunRunning}, Label: view.Active[0].Label()}, in, true)
	require.Equal(t, api.LabelHeld, held.Title)
	require.NotContains(t, held.Summary, "INC-4711")
	require.True(t, strings.HasSuffix(shown, "completed/success: "+api.LabelDone), shown)
}

// A held run told that the hold it shows was released, while another still
// matches it, shows the hold that keeps it, never the one that is gone;
// once none matches, it posts once.
func TestAHeldRunShowsTheHoldThatStillKeepsItAfterAnotherIsReleased(t *testing.T) {
	reader := &holdsReader{}
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	agentHold := api.Hold{Selector: api.HoldSelector{Agent: api.DefaultAgent}, By: "ops-oncall", Reason: "bad deploy", At: at}
	repoHold := api.Hold{Selector: api.HoldSelector{Target: "acme/widgets"}, By: "ops-lead", Reason: "repo frozen", At: at.Add(time.Minute)}
	reader.set(api.HoldsView{Active: []api.Hold{agentHold, repoHold}})
	h := newHeldHarness(t, reader)
	in := demoInput()
	in.Approvers = []string{"alice"}
	h.whenWaiting(time.Minute, func(id string) { h.decide(id, api.DecisionApprove, "alice", "") })
	h.env.RegisterDelayedCallback(func() {
		require.Equal(t, "held by ops: bad deploy", h.snapshot().Label)
		reader.set(api.HoldsView{Active: []api.Hold{repoHold}})
		h.env.SignalWorkflow(api.SignalHoldsReleased, nil)
	}, time.Hour)
	h.env.RegisterDelayedCallback(func() {
		snap := h.snapshot()
		require.Equal(t, "held by ops: repo frozen", snap.Label, "the hold that still keeps it")
		require.Zero(t, h.markedComments())
		reader.set(api.HoldsView{})
		h.env.SignalWorkflow(api.SignalHoldsReleased, nil)
	}, time.Hour+time.Minute)
	h.run(in)

	require.Equal(t, api.RunCompleted, h.snapshot().Run.Status)
	require.Equal(t, 1, h.markedComments())
}
