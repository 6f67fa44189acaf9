package api

import "testing"

// The comment tool's words make the stable labels, word for word, so that a
// run's labels stay what queries and the replay corpus already show.
func TestTheCommentsWordsMakeTheStableLabels(t *testing.T) {
	w := ToolWords{Noun: "comment", Verb: "post", Past: "posted"}.Or(ToolCreateIssueComment)
	for got, want := range map[string]string{
		w.WaitingLabel():    LabelWaitingApproval,
		w.Making():          LabelPosting,
		w.Checking():        LabelReconciling,
		w.BackoffLabel():    LabelBackoff,
		w.CannotTellLabel(): LabelCannotTell,
		w.RejectedLabel():   LabelRejected,
		w.ExpiredLabel():    LabelExpired,
	} {
		if got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
}

func TestAToolWithoutWordsReadsByItsName(t *testing.T) {
	for tool, want := range map[string][2]string{
		"create_ticket":     {"create a ticket", "created ticket"},
		"post_release_note": {"post a release note", "posted release note"},
		"submit_order":      {"submit an order", "Submitting the order"},
		"lookup":            {"run a lookup call", "Running the lookup call"},
	} {
		w := ToolWords{}.Or(tool)
		second := w.Made()
		if want[1] != "" && want[1][0] >= 'A' && want[1][0] <= 'Z' {
			second = w.Making()
		}
		if w.Do() != want[0] || second != want[1] {
			t.Errorf("%s: got %q, %q; want %q, %q", tool, w.Do(), second, want[0], want[1])
		}
	}
}
