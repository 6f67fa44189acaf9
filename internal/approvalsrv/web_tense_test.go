package approvalsrv

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
)

// actionHeadings are the headings of the run page's first action section:
// its own and those over the exact bytes and their rendering.
func actionHeadings(t *testing.T, page string) []string {
	t.Helper()
	start := strings.Index(page, `data-part="action"`)
	require.NotEqual(t, -1, start, "the page shows an action")
	section := page[start:]
	section = section[:strings.Index(section, "</section>")]
	var out []string
	for _, m := range headingTag.FindAllStringSubmatch(section, -1) {
		out = append(out, m[1])
	}
	return out
}

var headingTag = regexp.MustCompile(`<h[23][^>]*>([^<]*)</h[23]>`)

// The headings of an action say what the run has recorded of it, in the
// tense of the facts: "will show it" only while nothing has been made.
func TestActionHeadingsFollowWhatBecameOfTheAction(t *testing.T) {
	approvedRunning := waitingRun()
	approvedRunning.Run.Status = api.RunRunning
	approvedRunning.PendingAction.State, approvedRunning.PendingAction.DecidedBy = api.ActionApproved, "bob"
	completed := completedRun()
	completed.PendingAction.DecidedBy = "bob"
	rejected := waitingRun()
	rejected.Run.Status = api.RunCompleted
	rejected.PendingAction.State, rejected.PendingAction.DecidedBy, rejected.PendingAction.Reason = api.ActionRejected, "carol", "too harsh"
	feedback := rejected
	feedbackAction := *rejected.PendingAction
	feedbackAction.Feedback = true
	feedback.PendingAction = &feedbackAction
	expired := waitingRun()
	expired.Run.Status = api.RunCompleted
	expired.PendingAction.State = api.ActionExpired
	failed := completedRun()
	failed.Run.Status = api.RunFailed
	failed.Outcome = api.Outcome{Failed: []api.FailedOutcome{{StepID: "step-4", What: "create_issue_comment", Error: "403"}}}

	cases := map[string]struct {
		snap api.RunSnapshot
		want []string
	}{
		"waiting":                          {waitingRun(), []string{"Waiting for your decision", "Exactly what is approved", "As acme/widgets#1 will show it"}},
		"approved, comment not posted yet": {approvedRunning, []string{"Approved by bob, not done yet", "Exactly what was approved", "As acme/widgets#1 will show it"}},
		"approved and posted":              {completed, []string{"Done, approved by bob", "Exactly what was approved", "As posted on acme/widgets#1"}},
		"approved, then the post failed":   {failed, []string{"Approved by alice, not done", "Exactly what was approved", "As acme/widgets#1 would have shown it"}},
		"rejected":                         {rejected, []string{"Rejected by carol", "Exactly what was proposed", "As acme/widgets#1 would have shown it"}},
		"sent back with feedback":          {feedback, []string{"Sent back with feedback by carol", "Exactly what was proposed", "As acme/widgets#1 would have shown it"}},
		"expired":                          {expired, []string{"Expired without a decision", "Exactly what was proposed", "As acme/widgets#1 would have shown it"}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			h := newHarness(t, testConfig(), nil)
			h.runs.put("run-1", c.snap)

			page, _ := h.browser(map[string]string{"X-Forwarded-User": "alice"}).openRun("run-1")
			panel := readAll(t, h.get("/runs/run-1/panel", map[string]string{"X-Forwarded-User": "alice"}))

			require.Equal(t, c.want, actionHeadings(t, page))
			require.Equal(t, c.want, actionHeadings(t, panel), "the live panel says the same")
			require.Contains(t, page, "the raw text beside it is "+strings.TrimPrefix(c.want[1], "Exactly ")+".")
		})
	}
}

// The panel is redrawn on every event: a section whose headings change
// must change its key, or the page would keep the old words.
func TestActionKeyChangesWhenTheActionIsDone(t *testing.T) {
	h := newHarness(t, testConfig(), nil)
	approved := waitingRun()
	approved.Run.Status = api.RunRunning
	approved.PendingAction.State = api.ActionApproved
	h.runs.put("run-1", approved)
	before := readAll(t, h.get("/runs/run-1/panel", nil))
	h.runs.put("run-1", completedRun())
	after := readAll(t, h.get("/runs/run-1/panel", nil))

	key := regexp.MustCompile(`data-part="action" data-key="([^"]+)"`)
	require.NotEqual(t, key.FindStringSubmatch(before)[1], key.FindStringSubmatch(after)[1])
}

// The run's own forms are in the live panel: the cancel form while the
// run is open, the follow-up form once it has ended, never both.
func TestPanelCarriesTheCancelFormWhileOpenAndTheFollowUpOnceEnded(t *testing.T) {
	h := waitingHarness(t, nil, "alice")
	open := readAll(t, h.get("/runs/run-1/panel", nil))
	require.Contains(t, open, `<section data-part="cancel" data-key="cancel"`)
	require.Contains(t, open, `<form class="cancel" method="post" action="/runs/run-1/cancel">`)
	require.NotContains(t, open, "/follow-up")

	h.runs.put("run-1", completedRun())
	ended := readAll(t, h.get("/runs/run-1/panel", nil))
	require.Contains(t, ended, `<section data-part="follow-up" data-key="follow-up"`)
	require.Contains(t, ended, `<form class="follow-up" method="post" action="/runs/run-1/follow-up">`)
	require.NotContains(t, ended, "/cancel")
}
