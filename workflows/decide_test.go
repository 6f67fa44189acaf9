package workflows

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"

	"github.com/agentrun/agentrun/api"
)

// TestAnActionRemembersAtMost100RequestKeys: the requestIds an action
// remembers are bounded; a repeat of a remembered one is still recognised.
func TestAnActionRemembersAtMost100RequestKeys(t *testing.T) {
	pa := &api.PendingAction{}
	for i := 0; i < maxRequestIDs+1; i++ {
		require.True(t, remember(pa, fmt.Sprintf("key-%d", i)))
	}
	require.Len(t, pa.RequestKeys, maxRequestIDs)
	require.False(t, remember(pa, "key-99"), "the 100th key is remembered")
	require.True(t, remember(pa, "key-100"), "the 101st was not kept, so it counts as new")
}

// A second approval by whoever approved already says so once, "by them",
// with when they approved, and posts nothing more.
func TestASecondApprovalByTheApproverSaysTheyAlreadyApproved(t *testing.T) {
	h := newHarness(t)
	in := demoInput()
	in.Approvers = []string{"alice"}
	h.whenWaiting(time.Minute, func(id string) {
		h.decide(id, api.DecisionApprove, "alice", "")
		h.decide(id, api.DecisionApprove, "ALICE", "from the other tab")
	})
	h.run(in)
	require.NoError(t, h.env.GetWorkflowError())

	require.Equal(t, 1, h.markedComments())
	pa := h.snapshot().PendingAction
	require.Equal(t, api.ActionApproved, pa.State)
	require.Equal(t, "alice", pa.DecidedBy)
	require.NotNil(t, pa.DecidedAt)
	require.Equal(t, []string{"approve by ALICE: the action was already approved by them at " + pa.DecidedAt.UTC().Format(time.RFC3339)},
		ignoredDetails(h.events()))
}

// A decision the approval server refused is recorded naming who sent it,
// once: the refusal's reason names them or it is said before it; a refusal
// of nobody's decision names nobody.
func TestARefusalFromTheApprovalServerNamesItsDeciderOnce(t *testing.T) {
	h := newHarness(t)
	h.whenWaiting(time.Minute, func(id string) {
		for _, sig := range []api.RefusalSignal{
			{ActionID: id, Who: "mallory", Channel: "web page", Reason: "the session expired"},
			{ActionID: id, Who: " mallory ", Channel: "GitHub comment", Reason: "mallory has read permission on acme/widgets"},
			{ActionID: id, Channel: "signed API", Reason: "bad signature"},
		} {
			h.env.SignalWorkflow(api.SignalRefusal, sig)
		}
		h.decide(id, api.DecisionApprove, "bob", "")
	})
	h.run(demoInput())
	require.NoError(t, h.env.GetWorkflowError())

	require.Equal(t, 1, h.markedComments())
	require.Equal(t, []string{
		"refused by the approval server (web page): a decision by mallory: the session expired",
		"refused by the approval server (GitHub comment): mallory has read permission on acme/widgets",
		"refused by the approval server (signed API): bad signature",
	}, ignoredDetails(h.events()))
}

// Feedback may be api.MaxFeedbackBytes long, and reaches the model whole;
// one byte more and the answer is refused and changes nothing.
func TestFeedbackUpToItsBoundReachesTheModelWhole(t *testing.T) {
	for name, size := range map[string]int{"at the bound": api.MaxFeedbackBytes, "one over": api.MaxFeedbackBytes + 1} {
		t.Run(name, func(t *testing.T) {
			feedback := strings.Repeat("f", size)
			var suite testsuite.WorkflowTestSuite
			r := newPinRun(t, &suite, &pinTool{}, []api.ToolCall{pinCall("p1", "acme/widgets#1", "word")})
			r.at(t, time.Minute, func(actions []api.PendingAction) {
				r.decide(api.ApprovalSignal{ActionID: actions[0].ID, Decision: api.DecisionRespond, Reason: feedback})
			})

			snap := r.runPinner(t, "alice")

			pa := snap.Actions[0]
			v, err := r.env.QueryWorkflow(api.QueryConversation, 0)
			require.NoError(t, err)
			var conv []api.Message
			require.NoError(t, v.Get(&conv))
			var answer string
			for _, m := range conv {
				if m.Role == api.RoleTool && m.ToolCallID == "p1" {
					answer = m.Content
				}
			}
			if size <= api.MaxFeedbackBytes {
				require.Equal(t, api.ActionRejected, pa.State)
				require.True(t, pa.Feedback)
				require.Equal(t, feedback, pa.Reason)
				require.Equal(t, api.FeedbackResult("alice", feedback), answer)
				require.Empty(t, r.ignoredDetails(t))
				return
			}
			require.Equal(t, api.ActionExpired, pa.State)
			require.False(t, pa.Feedback)
			require.NotContains(t, answer, feedback)
			require.Equal(t, []string{fmt.Sprintf("respond by alice: feedback is %d bytes; at most %d", size, api.MaxFeedbackBytes)}, r.ignoredDetails(t))
		})
	}
}
