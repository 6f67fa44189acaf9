package approvalsrv

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v62/github"
	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
	ghapi "github.com/agentrun/agentrun/github"
	"github.com/agentrun/agentrun/internal/ghsandbox"
	"github.com/agentrun/agentrun/internal/testkit"
	"github.com/agentrun/agentrun/runclient"
)

// The default fixture's pull requests' heads.
const (
	pull1Head = "9f3c2a71d4e85b06c1f7a2d39e4b58c60a1d7e42"
	pull2Head = "c27d9e04b18a53f6d90e2b7c41a85f3e6d0b1c98"
)

// buttonPress is the check_run requested_action delivery GitHub sends when
// sender presses the button identifier on check run check.
func buttonPress(t *testing.T, check ghsandbox.CheckRun, sender, identifier string) []byte {
	t.Helper()
	body, err := json.Marshal(github.CheckRunEvent{
		Action: github.String("requested_action"),
		CheckRun: &github.CheckRun{
			ID: github.Int64(check.ID), Name: github.String(check.Name), HeadSHA: github.String(check.HeadSHA),
			ExternalID: github.String(check.ExternalID), Status: github.String(check.Status),
		},
		RequestedAction: &github.RequestedAction{Identifier: identifier},
		Repo: &github.Repository{
			FullName: github.String("acme/widgets"), Name: github.String("widgets"), Owner: &github.User{Login: github.String("acme")},
		},
		Sender: &github.User{Login: github.String(sender), Type: github.String("User")},
	})
	require.NoError(t, err)
	return body
}

// checkOf waits until the run's only check run on sha satisfies ok, and
// fails when a second one appears.
func checkOf(t *testing.T, sb *ghsandbox.Server, sha, runID string, ok func(ghsandbox.CheckRun) bool) ghsandbox.CheckRun {
	t.Helper()
	var got ghsandbox.CheckRun
	require.Eventually(t, func() bool {
		var mine []ghsandbox.CheckRun
		for _, c := range sb.CheckRuns("acme", "widgets", sha) {
			if c.ExternalID == runID {
				mine = append(mine, c)
			}
		}
		require.LessOrEqual(t, len(mine), 1, "one check run per run: %+v", mine)
		if len(mine) == 1 {
			got = mine[0]
		}
		return len(mine) == 1 && ok(got)
	}, time.Minute, 20*time.Millisecond)
	return got
}

func buttonOf(c ghsandbox.CheckRun, label string) string {
	i := slices.IndexFunc(c.Actions, func(a ghsandbox.CheckRunAction) bool { return a.Label == label })
	if i < 0 {
		return ""
	}
	return c.Actions[i].Identifier
}

// TestTheRunIsACheckRunWithButtonsThatDecideOnADevServer: a pull request
// run whose create-check-run answer is lost still owns one check run; it
// goes through the run's labels, carries Approve and Reject while the
// comment waits, a reader's press is refused, a writer's Approve posts the
// comment exactly once (a replayed delivery does nothing), and the check
// completes with success; a Reject from the check run is recorded as such
// and completes neutral.
func TestTheRunIsACheckRunWithButtonsThatDecideOnADevServer(t *testing.T) {
	const queue = "approvalsrv-checkrun"
	stack := testkit.StartStack(t, testkit.StackOptions{TaskQueue: queue})
	runs := runclient.New(stack.Client(), runclient.Options{})
	gh, err := ghapi.NewClient(stack.GitHubURL, "sandbox-token")
	require.NoError(t, err)
	cfg := testConfig()
	cfg.TaskQueue = queue
	h := serve(t, cfg, Options{Runs: runs, Permissions: ghapi.NewAccess(gh, nil, ""), Now: time.Now})
	sb := stack.Sandbox()
	require.NoError(t, sb.AddFault(ghsandbox.Fault{Op: ghsandbox.OpCreateCheckRun, Mode: ghsandbox.ModeDropResponse}))

	start := func(runID string, pull int) {
		_, err := runs.Start(t.Context(), runclient.StartRequest{RunID: runID, TaskQueue: queue, Input: api.RunInput{
			Repo: "acme/widgets", PullNumber: pull, UserID: "carol", CheckRun: &api.CheckRunInput{},
		}})
		require.NoError(t, err)
	}
	start("check-approve", 1)
	waiting := checkOf(t, sb, pull1Head, "check-approve", func(c ghsandbox.CheckRun) bool { return len(c.Actions) == 2 })
	require.Equal(t, api.CheckRunName(api.DefaultAgent), waiting.Name)
	require.Equal(t, "in_progress", waiting.Status)
	require.Equal(t, api.LabelWaitingApproval, *waiting.Output.Title)
	require.Contains(t, *waiting.Output.Summary, "Run `check-approve`")
	snap := untilSnapshot(t, runs, "check-approve", func(s api.RunSnapshot) bool { return s.Run.Status == api.RunWaitingForUser })
	action := snap.PendingAction
	require.Equal(t, api.CheckButtonID(api.DecisionApprove, action.ID, action.ArgsHash), buttonOf(waiting, "Approve"))

	// mallory may read the repository, not write: refused, nothing sent.
	reader := h.deliver("check_run", "press-reader", buttonPress(t, waiting, "mallory", buttonOf(waiting, "Approve")))
	require.Equal(t, http.StatusForbidden, reader.StatusCode, replyOf(t, reader)["error"])
	// A button of another action (or of these arguments before an edit) matches nothing.
	stale := h.deliver("check_run", "press-stale", buttonPress(t, waiting, "bob", api.CheckButtonID(api.DecisionApprove, action.ID, "sha256:other")))
	require.Equal(t, http.StatusConflict, stale.StatusCode, replyOf(t, stale)["error"])

	press := buttonPress(t, waiting, "bob", buttonOf(waiting, "Approve"))
	first := h.deliver("check_run", "press-1", press)
	require.Equal(t, http.StatusAccepted, first.StatusCode, replyOf(t, first)["error"])
	again := h.deliver("check_run", "press-1", press)
	require.Equal(t, http.StatusAccepted, again.StatusCode, "a redelivery answers as the first did")

	done := checkOf(t, sb, pull1Head, "check-approve", func(c ghsandbox.CheckRun) bool { return c.Status == "completed" })
	require.Equal(t, "success", done.Conclusion, done.Shown)
	require.Equal(t, api.LabelDone, *done.Output.Title)
	require.Empty(t, done.Actions, "the buttons go once nothing waits")
	require.Len(t, sb.Comments("acme", "widgets", 1), 1, "the approve button posts exactly once")
	end := untilSnapshot(t, runs, "check-approve", ended)
	require.Equal(t, api.RunCompleted, end.Run.Status)
	require.Equal(t, "bob", end.Actions[0].DecidedBy)
	require.Equal(t, []string{string(api.ActionWaiting), string(api.ActionApproved)}, actionStates(t, runs, "check-approve"), "one approval")
	t.Log("the check showed:\n" + strings.Join(done.Shown, "\n"))
	shown := strings.Join(done.Shown, "\n")
	require.Contains(t, shown, "in_progress: "+api.LabelWaitingApproval+" [Approve] [Reject]")
	require.True(t, strings.HasSuffix(shown, "completed/success: "+api.LabelDone), shown)
	require.NotContains(t, strings.ToLower(shown), "again")

	// A press replayed after the run ended changes nothing either.
	late := h.deliver("check_run", "press-late", press)
	require.NotEqual(t, http.StatusAccepted, late.StatusCode)
	require.Len(t, sb.Comments("acme", "widgets", 1), 1)

	start("check-reject", 2)
	waiting = checkOf(t, sb, pull2Head, "check-reject", func(c ghsandbox.CheckRun) bool { return len(c.Actions) == 2 })
	no := h.deliver("check_run", "press-2", buttonPress(t, waiting, "bob", buttonOf(waiting, "Reject")))
	require.Equal(t, http.StatusAccepted, no.StatusCode, replyOf(t, no)["error"])
	done = checkOf(t, sb, pull2Head, "check-reject", func(c ghsandbox.CheckRun) bool { return c.Status == "completed" })
	require.Equal(t, "neutral", done.Conclusion, done.Shown)
	end = untilSnapshot(t, runs, "check-reject", ended)
	require.Equal(t, api.ActionRejected, end.Actions[0].State)
	require.Equal(t, api.RejectedFromCheckRun, end.Actions[0].Reason)
	require.Empty(t, sb.Comments("acme", "widgets", 2))
}

// actionStates are the run's action state changes, in order.
func actionStates(t *testing.T, runs *runclient.Client, runID string) []string {
	t.Helper()
	events, err := runs.Events(t.Context(), runID, 0)
	require.NoError(t, err)
	var out []string
	for _, e := range events {
		if e.Type == api.EventActionState {
			out = append(out, e.Status)
		}
	}
	return out
}
