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
	f := ghsandbox.DefaultFixture()
	f.Repos[0].Pulls[0].Body = strings.Repeat("Lorem ipsum dolor sit amet. ", 5<<20/28)

	res, snap, _ := reviewApproved(t, f, "huge-read", 1)

	require.Equal(t, api.RunCompleted, res.Status)
	read := stepOfTool(t, snap, api.ToolGetPullRequest)
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
	f := ghsandbox.DefaultFixture()
	ghsandbox.AddBigPull(&f)

	res, snap, sb := reviewApproved(t, f, "big-pull", ghsandbox.BigPull)

	require.Equal(t, api.RunCompleted, res.Status)
	require.Equal(t, api.LabelDone, snap.Label)
	require.Equal(t, api.OutcomeComplete, snap.Run.Outcome)
	require.Empty(t, snap.Outcome.Failed)
	require.Equal(t, "Posted 1 comment on acme/widgets#77", snap.Outcome.Summary)
	require.NotContains(t, res.Answer, "failed")
	require.Contains(t, res.Answer, "files left out")
	require.Equal(t, api.StepSucceeded, stepOfTool(t, snap, api.ToolListPullRequestFiles).Status)

	comments := sb.Comments("acme", "widgets", ghsandbox.BigPull)
	require.Len(t, comments, 1)
	require.Regexp(t, "Left out 2,\\d{3} files past the 384 KiB read bound, not reviewed: "+
		"`vendor/github.com/example/codec/gen/table\\d{4}.go`, .* and 2,\\d{3} more.", comments[0].Body)
	require.Contains(t, comments[0].Body, "`codec.go` line 5: new `TODO` marker")
}

// reviewApproved runs a review of acme/widgets#pull on a dev server, with a
// worker on queue over a sandbox of f, approves its comment as alice, and
// returns the run's result, its last snapshot and the sandbox.
func reviewApproved(t *testing.T, f ghsandbox.Fixture, queue string, pull int) (api.RunResult, api.RunSnapshot, *ghsandbox.Server) {
	t.Helper()
	testkit.NeedsDevServer(t)
	s := testkit.StartStack(t, testkit.StackOptions{})
	sb := ghsandbox.New(f)
	testkit.StartSandboxWorker(t, s.Client(), queue, sb)

	run := s.StartReviewOf(t, queue, pull)
	pending := s.WaitForApproval(t, run.GetID())
	s.Approve(t, run.GetID(), pending.ID)
	res := s.WaitForResult(t, run)
	snap, err := s.Snapshot(context.Background(), run.GetID())
	require.NoError(t, err)
	return res, snap, sb
}

// stepOfTool is the run's last step of tool.
func stepOfTool(t *testing.T, snap api.RunSnapshot, tool string) api.AgentStep {
	t.Helper()
	for i := len(snap.Steps) - 1; i >= 0; i-- {
		if snap.Steps[i].ToolName == tool {
			return snap.Steps[i]
		}
	}
	t.Fatalf("the run has no step of %s", tool)
	return api.AgentStep{}
}
