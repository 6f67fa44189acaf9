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

// A vendoring pull request of 3,000 files and 8.5 MB of patches, read
// through go-github from the sandbox by a real worker: the run once ended
// "Done" with "Could not review acme/widgets#77: list_pull_request_files
// failed", the listing's bound taken for a failure. It now posts a review
// of what fit that names what it left out, and claims no failure.
func TestThreeThousandFilePullRequestIsReviewedForWhatFitOnADevServer(t *testing.T) {
	testkit.NeedsDevServer(t)
	s := testkit.StartStack(t, testkit.StackOptions{})
	f := ghsandbox.DefaultFixture()
	ghsandbox.AddBigPull(&f)
	sb := ghsandbox.New(f)
	const queue = "big-pull"
	testkit.StartSandboxWorker(t, s.Client(), queue, sb)

	run := s.StartReviewOf(t, queue, ghsandbox.BigPull)
	pending := s.WaitForApproval(t, run.GetID())
	s.Approve(t, run.GetID(), pending.ID)
	res := s.WaitForResult(t, run)

	require.Equal(t, api.RunCompleted, res.Status)
	snap, err := s.Snapshot(context.Background(), run.GetID())
	require.NoError(t, err)
	require.Equal(t, api.LabelDone, snap.Label)
	require.Equal(t, api.OutcomeComplete, snap.Run.Outcome)
	require.Empty(t, snap.Outcome.Failed)
	require.Equal(t, "Posted 1 comment on acme/widgets#77", snap.Outcome.Summary)
	require.NotContains(t, res.Answer, "failed")
	require.Contains(t, res.Answer, "files left out")
	var list *api.AgentStep
	for i := range snap.Steps {
		if snap.Steps[i].ToolName == api.ToolListPullRequestFiles {
			list = &snap.Steps[i]
		}
	}
	require.NotNil(t, list, "the run listed the files")
	require.Equal(t, api.StepSucceeded, list.Status)

	comments := sb.Comments("acme", "widgets", ghsandbox.BigPull)
	require.Len(t, comments, 1)
	require.Regexp(t, "Left out 2,\\d{3} files past the 384 KiB read bound, not reviewed: "+
		"`vendor/github.com/example/codec/gen/table\\d{4}.go`, .* and 2,\\d{3} more.", comments[0].Body)
	require.Contains(t, comments[0].Body, "`codec.go` line 5: new `TODO` marker")
}
