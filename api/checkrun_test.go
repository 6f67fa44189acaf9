package api

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzParseCheckButtonID: whatever an identifier claims, only one this
// package could have made parses, and it fits GitHub's 20 characters.
func FuzzParseCheckButtonID(f *testing.F) {
	f.Add(CheckButtonID(DecisionApprove, "act-1", "h"))
	f.Add(CheckButtonID(DecisionReject, "act-1", "h"))
	f.Add("approve-")
	f.Add("lgtm|26764")
	f.Fuzz(func(t *testing.T, id string) {
		decision, token, ok := ParseCheckButtonID(id)
		if !ok {
			return
		}
		require.LessOrEqual(t, len(id), 20)
		require.Equal(t, id, decision+"-"+token)
	})
}

func TestCheckConclusionSaysWhatTheRunDid(t *testing.T) {
	posted := []*AgentStep{{Type: StepToolCall, OperationKey: "r:5", Status: StepSucceeded}}
	read := []*AgentStep{{Type: StepToolCall, Status: StepSucceeded}}
	rejected := []*AgentStep{{Type: StepToolCall, OperationKey: "r:5", Status: StepRejected}}
	require.Equal(t, ConclusionSuccess, CheckConclusion(RunCompleted, posted))
	require.Equal(t, ConclusionNeutral, CheckConclusion(RunCompleted, read), "a read is not something done")
	require.Equal(t, ConclusionNeutral, CheckConclusion(RunCompleted, rejected))
	require.Equal(t, ConclusionFailure, CheckConclusion(RunFailed, posted))
	require.Equal(t, ConclusionCancelled, CheckConclusion(RunCancelled, nil))
}

func TestCheckCheckRunRefusesWhatARunCannotOwn(t *testing.T) {
	pr := Target{Owner: "acme", Repo: "widgets", PullNumber: 1}
	require.NoError(t, CheckCheckRun(nil, pr))
	require.NoError(t, CheckCheckRun(&CheckRunInput{}, pr))
	require.NoError(t, CheckCheckRun(&CheckRunInput{HeadSHA: "9f3c2a71d4e85b06c1f7a2d39e4b58c60a1d7e42"}, pr))
	require.Error(t, CheckCheckRun(&CheckRunInput{HeadSHA: "main"}, pr))
	require.Error(t, CheckCheckRun(&CheckRunInput{HeadSHA: "9F3C2A71D4E85B06C1F7A2D39E4B58C60A1D7E42"}, pr))
	require.Error(t, CheckCheckRun(&CheckRunInput{}, Target{Kind: "support_queue", Fields: map[string]string{"queue": "s"}}))
}
