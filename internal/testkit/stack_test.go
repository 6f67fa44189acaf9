package testkit

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/ghsandbox"
)

func TestStackWorkerPostsAnApprovedReviewWithoutAskingGitHubWhoItIs(t *testing.T) {
	NeedsDevServer(t)
	s := StartStack(t, StackOptions{})
	run := s.StartReview(t, s.TaskQueue)
	action := s.WaitForApproval(t, run.GetID())

	s.Approve(t, run.GetID(), action.ID)

	require.Equal(t, api.RunCompleted, s.WaitForResult(t, run).Status)
	require.Len(t, s.Sandbox().Comments("acme", "widgets", 1), 1)
	var ops []string
	for _, r := range s.Sandbox().Requests() {
		ops = append(ops, r.Op)
	}
	require.Contains(t, ops, ghsandbox.OpCreateComment)
	require.NotContains(t, ops, ghsandbox.OpGetUser,
		"the worker main resolves its login once at start-up; the stack's worker must run the same way")
}
