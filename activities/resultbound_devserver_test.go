package activities_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/ghsandbox"
	"github.com/agentrun/agentrun/internal/testkit"
)

// A pull request whose description is 5 MB, over Temporal's 2 MB blob
// limit: before every result was bounded, the read's completion was refused
// on every attempt and the run failed on an unreadable input.
func TestRunWhoseReadAnswersFiveMegabytesCompletesOnADevServer(t *testing.T) {
	testkit.NeedsDevServer(t)
	s := testkit.StartStack(t, testkit.StackOptions{})
	f := ghsandbox.DefaultFixture()
	f.Repos[0].Pulls[0].Body = strings.Repeat("Lorem ipsum dolor sit amet. ", 5<<20/28)
	const queue = "huge-read"
	testkit.StartSandboxWorker(t, s.Client(), queue, ghsandbox.New(f))

	run := s.StartReview(t, queue)
	pending := s.WaitForApproval(t, run.GetID())
	s.Approve(t, run.GetID(), pending.ID)
	res := s.WaitForResult(t, run)

	require.Equal(t, api.RunCompleted, res.Status)
	snap, err := s.Snapshot(context.Background(), run.GetID())
	require.NoError(t, err)
	var read *api.AgentStep
	for i := range snap.Steps {
		if snap.Steps[i].ToolName == api.ToolGetPullRequest {
			read = &snap.Steps[i]
		}
	}
	require.NotNil(t, read, "the run read the pull request")
	require.Equal(t, api.StepSucceeded, read.Status)
	var shown struct {
		Truncated bool `json:"truncated"`
		Bytes     int  `json:"bytes"`
	}
	require.NoError(t, json.Unmarshal(read.SafeOutput, &shown))
	require.True(t, shown.Truncated, "the step says the result was cut: %s", read.SafeOutput)
	require.Greater(t, shown.Bytes, 5<<20-64)
}
