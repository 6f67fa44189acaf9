package api

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func std(key, words string) Standing { return Standing{Key: key, Words: words} }

func TestACompletedRunStandsByWhatItDidNeverPlainlyDone(t *testing.T) {
	require.Equal(t, std("completed", "Done"), StandingOf(RunCompleted, OutcomeComplete))
	require.Equal(t, std("completed", "Done"), StandingOf(RunCompleted, ""))
	require.Equal(t, std(StandingPartial, "Partial"), StandingOf(RunCompleted, OutcomePartial))
	require.Equal(t, std(StandingNotDone, "Not done"), StandingOf(RunCompleted, OutcomeNotDone))
	require.Equal(t, std("waiting_for_user", "Waiting for approval"), StandingOf(RunWaitingForUser, ""))
	require.Equal(t, std("cancelled", "Cancelled"), StandingOf(RunCancelled, OutcomeNotDone), "only a completed run stands by its outcome")
	require.Equal(t, std("failed", "Failed"), StandingOf(RunFailed, ""))
}

func TestARunStandsByItsOutcomeWithWhyInOneLine(t *testing.T) {
	done := Run{Status: RunCompleted, Outcome: OutcomeComplete}
	posted := []PostedOutcome{{StepID: "s-9", Tool: "save_recommendation"}}
	cases := map[string]struct {
		run    Run
		o      Outcome
		cancel *Cancellation
		want   Standing
	}{
		"done": {done, Outcome{Posted: posted}, nil, std("completed", "Done")},
		"partial, naming the tool that failed": {Run{Status: RunCompleted, Outcome: OutcomePartial},
			Outcome{Posted: posted, Failed: []FailedOutcome{{StepID: "s-4", What: "get_coupons", Error: "coupons unavailable"}}}, nil,
			Standing{StandingPartial, "Partial", "get_coupons failed (coupons unavailable)"}},
		"rejected: nothing done": {done, Outcome{Declined: []DeclinedOutcome{{State: ActionRejected, By: "bob", Reason: "wrong file"}}}, nil,
			Standing{StandingNotDone, "Rejected by bob", "wrong file"}},
		"sent back with feedback, not rejected": {done, Outcome{Declined: []DeclinedOutcome{{State: ActionRejected, Feedback: true, By: "bob", Reason: "shorter"}}}, nil,
			Standing{StandingSentBack, "Sent back by bob", "shorter"}},
		"expired": {done, Outcome{Declined: []DeclinedOutcome{{State: ActionExpired}}}, nil,
			Standing{StandingNotDone, "Expired", "no decision in time"}},
		"a partial run whose save was rejected reads rejected": {Run{Status: RunCompleted, Outcome: OutcomePartial},
			Outcome{Declined: []DeclinedOutcome{{State: ActionRejected, By: "bob", Reason: "no"}}, Failed: []FailedOutcome{{StepID: "s", What: "get_coupons", Error: "x"}}}, nil,
			Standing{StandingNotDone, "Rejected by bob", "no"}},
		"cancelled, by whom and why, never expired": {Run{Status: RunCancelled},
			Outcome{Declined: []DeclinedOutcome{{State: ActionExpired, Reason: "run cancelled by alice: wrong PR"}}}, &Cancellation{By: "alice", Reason: "wrong PR"},
			Standing{"cancelled", "Cancelled by alice", "wrong PR"}},
		"failed": {Run{Status: RunFailed, Error: "model unavailable"}, Outcome{}, nil, Standing{"failed", "Failed", "model unavailable"}},
		"not done, in the model's words": {Run{Status: RunCompleted, Outcome: OutcomeNotDone, Result: "Could not review: no files"}, Outcome{}, nil,
			Standing{StandingNotDone, "Not done", "Could not review: no files"}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			require.Equal(t, c.want, StandingOfOutcome(c.run, c.o, c.cancel))
		})
	}
}

func TestADeclinedActionSaysWhatBecameOfItNeverExpiredForACancel(t *testing.T) {
	cancel := &Cancellation{By: "alice", Reason: "wrong PR"}
	require.Equal(t, "not decided: run cancelled by alice: wrong PR",
		DeclinedWords(DeclinedOutcome{State: ActionExpired, Reason: cancel.Detail()}, cancel))
	require.Equal(t, "expired without a decision", DeclinedWords(DeclinedOutcome{State: ActionExpired, Reason: "no decision before 2026-01-01T00:00:00Z"}, cancel))
	require.Equal(t, "sent back with feedback by bob: shorter", DeclinedWords(DeclinedOutcome{State: ActionRejected, Feedback: true, By: "bob", Reason: "shorter"}, nil))
	require.Equal(t, "rejected by bob: no", DeclinedWords(DeclinedOutcome{State: ActionRejected, By: "bob", Reason: "no"}, nil))
}

// A run's memo keeps only what the review of the next head needs: the
// comments it posted, the last few, so that the memo stays small.
func TestPostedCommentsKeepTheLastCommentsOnly(t *testing.T) {
	var posted []PostedOutcome
	for i := 1; i <= MaxPostedInMemo+2; i++ {
		posted = append(posted, PostedOutcome{StepID: "label", ExternalID: "bug"}, PostedOutcome{CommentID: int64(i)})
	}
	kept := PostedComments(posted)
	require.Len(t, kept, MaxPostedInMemo)
	require.Equal(t, int64(3), kept[0].CommentID)
	require.Equal(t, int64(MaxPostedInMemo+2), kept[len(kept)-1].CommentID)
	require.NotNil(t, PostedComments(nil), "an empty list, which says the run posted none")
}
