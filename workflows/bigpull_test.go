package workflows

import (
	"context"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/ghsandbox"
)

// A pull request of 3,000 files and 8.5 MB of patches, as vendoring makes:
// the listing's own bound once read as a failed read, and the run ended
// "Done" with "Could not review ...: list_pull_request_files failed".
func TestAThreeThousandFilePullRequestGetsAReviewOfWhatFitNamingWhatItLeftOut(t *testing.T) {
	f := ghsandbox.DefaultFixture()
	ghsandbox.AddBigPull(&f)
	h := newHarnessWith(t, ghsandbox.New(f))
	// Reading and reviewing 8.5 MB takes real seconds on a loaded machine;
	// the testsuite's default 3 s bound is not about this run.
	h.env.SetTestTimeout(2 * time.Minute)
	in := demoInput()
	in.PullNumber = ghsandbox.BigPull
	h.approveAs("alice")
	h.run(in)
	require.NoError(t, h.env.GetWorkflowError())

	snap := h.snapshot()
	require.Equal(t, api.RunCompleted, snap.Run.Status)
	require.Equal(t, api.LabelDone, snap.Label, "a review was made and posted")
	require.Equal(t, api.OutcomeComplete, snap.Run.Outcome)
	require.Empty(t, snap.Outcome.Failed, "nothing failed, and nothing says so")
	require.Equal(t, "Posted 1 comment on acme/widgets#77", snap.Outcome.Summary)
	require.Equal(t, api.StepSucceeded, stepOfTool(t, snap, api.ToolListPullRequestFiles).Status)
	require.NotContains(t, snap.Run.Result, "failed")
	require.Regexp(t, `^Posted the review of acme/widgets#77 \(\d+ findings?, 2,\d{3} files left out\) as comment \d+`, snap.Run.Result)

	comments := h.sandbox.Comments("acme", "widgets", ghsandbox.BigPull)
	require.Len(t, comments, 1)
	body := comments[0].Body
	require.Contains(t, body, "`codec.go` line 5: new `TODO` marker", "the files it read are reviewed, file by file")
	left := regexp.MustCompile("Left out (2,\\d{3}) files past the 384 KiB read bound, not reviewed: " +
		"`vendor/github.com/example/codec/gen/table(\\d{4}).go`, .* and (2,\\d{3}) more.").FindStringSubmatch(body)
	require.NotNil(t, left, "the review names what it left out: %s", body)
	require.Regexp(t, `What I checked: \d{3} files`, body)
}

// undoneModel answers at once that it could not do its task.
type undoneModel struct{}

func (undoneModel) Next(context.Context, []api.Message, []api.ToolSpec) (api.ModelDecision, error) {
	return api.ModelDecision{Final: "Could not review acme/widgets#1: nothing could be read.", Undone: true}, nil
}

func TestARunWhoseModelCouldNotDoItsTaskIsNeverDone(t *testing.T) {
	var suite testsuite.WorkflowTestSuite
	h := newHarnessOn(t, &suite, ghsandbox.New(ghsandbox.DefaultFixture()), undoneModel{})
	h.run(demoInput())
	require.NoError(t, h.env.GetWorkflowError(), "nothing failed")

	snap := h.snapshot()
	require.Equal(t, api.RunCompleted, snap.Run.Status)
	require.Equal(t, api.LabelNotDone, snap.Label)
	require.Equal(t, api.OutcomeNotDone, snap.Run.Outcome)
	require.Empty(t, snap.Outcome.Failed)
	require.Equal(t, "Nothing done on acme/widgets#1; not done: Could not review acme/widgets#1: nothing could be read.", snap.Outcome.Summary)
	var res api.RunResult
	require.NoError(t, h.env.GetWorkflowResult(&res))
	require.Equal(t, api.OutcomeNotDone, snap.Run.Outcome)
	require.Equal(t, &snap.Outcome, res.Outcome)
}
