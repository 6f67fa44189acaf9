package approvalsrv

import (
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
)

// A target that is not a pull request reads as people name it on every
// page: the label its run recorded, or, for a run from before runs kept
// one, the target's own words; never a pull request's "#0".

var emptyPullRequest = regexp.MustCompile(`#0\b`)

func recommendRun(label string) api.RunSnapshot {
	target, err := api.NewTarget("recommendation_request", map[string]string{"city": "riverside", "party_size": "2", "budget": "150"})
	if err != nil {
		panic(err)
	}
	snap := waitingRun("alice")
	snap.Run.Repo, snap.Run.PullNumber = "", 0
	snap.Run.Target, snap.Run.TargetLabel, snap.Run.Agent, snap.Run.UserID = &target, label, "recommend", "carol"
	snap.PendingAction.ToolName, snap.PendingAction.Target = "save_recommendation", "merchants.test/recommendations"
	snap.Actions[0] = *snap.PendingAction
	snap.Label = "Waiting for approval to save a recommendation"
	return snap
}

func TestANonPullRequestTargetReadsByItsLabelOnTheRunPageHistoryAndInbox(t *testing.T) {
	for label, want := range map[string]string{
		"table for 2 in riverside (budget 150)": "table for 2 in riverside (budget 150)",
		"":                                      "recommendation request (budget 150, city riverside, party size 2)",
	} {
		h := newHarness(t, testConfig(), nil)
		h.runs.put("run-rec", recommendRun(label))
		alice := h.browser(map[string]string{"X-Forwarded-User": "alice"})

		page, _ := alice.openRun("run-rec")
		require.Contains(t, page, want, "the run page")
		require.NotRegexp(t, emptyPullRequest, page, "the run page")

		history := readAll(t, h.get("/runs", map[string]string{"X-Forwarded-User": "alice"}))
		require.Contains(t, history, want, "history")
		require.NotRegexp(t, emptyPullRequest, history, "history")

		inbox := readAll(t, h.get("/", map[string]string{"X-Forwarded-User": "alice"}))
		require.Contains(t, inbox, "run-rec")
		require.NotRegexp(t, emptyPullRequest, inbox, "the inbox")
	}
}
