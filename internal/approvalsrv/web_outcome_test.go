package approvalsrv

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
)

// completedRun is waitingRun after alice approved and the comment was posted.
func completedRun() api.RunSnapshot {
	snap := waitingRun()
	snap.Run.Status = api.RunCompleted
	snap.Label = api.LabelDone
	snap.PendingAction.State = api.ActionApproved
	snap.PendingAction.DecidedBy = "alice"
	snap.Outcome = api.Outcome{
		Summary: "Posted 1 comment on acme/widgets#1",
		Posted: []api.PostedOutcome{{
			StepID: "step-3", ActionID: "act-1", Target: "acme/widgets#1", CommentID: 2000000001,
			ExternalID: "2000000001", Made: "posted comment",
			URL: "https://github.com/acme/widgets/pull/1#issuecomment-2000000001", ApprovedBy: "alice",
		}},
	}
	return snap
}

func TestRunPageOfACompletedRunShowsTheOutcomeWithTheCommentLinkNotDoneTwice(t *testing.T) {
	h := newHarness(t, testConfig(), nil)
	h.runs.put("run-1", completedRun())

	page, _ := h.browser(map[string]string{"X-Forwarded-User": "alice"}).openRun("run-1")

	require.Contains(t, page, `badge-completed">Done`)
	require.NotContains(t, page, `id="run-label"`, "the label only repeats the status")
	require.Contains(t, page, `<p id="outcome-summary">Posted 1 comment on acme/widgets#1</p>`)
	require.Contains(t, page, `Done: <a href="https://github.com/acme/widgets/pull/1#issuecomment-2000000001">posted comment 2000000001</a> on acme/widgets#1, approved by alice`)
}

func TestRunPageOfATicketRunSaysWhatTheToolMadeInItsWordsAndNeverComment(t *testing.T) {
	h := newHarness(t, testConfig(), nil)
	snap := completedRun()
	snap.Outcome = api.Outcome{
		Summary: "Created 1 ticket on tickets.example; a ticket rejected by bob",
		Posted: []api.PostedOutcome{{StepID: "step-3", ActionID: "act-1", Tool: "create_ticket", Target: "tickets.example",
			ExternalID: "T-1001", Made: "created ticket", ApprovedBy: "alice"}},
		Declined: []api.DeclinedOutcome{{StepID: "step-6", ActionID: "act-2", Tool: "create_ticket", Target: "tickets.example",
			State: api.ActionRejected, By: "bob", Noun: "ticket"}},
	}
	h.runs.put("run-1", snap)

	page, _ := h.browser(map[string]string{"X-Forwarded-User": "alice"}).openRun("run-1")

	section := page[strings.Index(page, `data-part="outcome"`):]
	section = section[:strings.Index(section, "</section>")]
	require.Contains(t, section, "Done: created ticket T-1001 on tickets.example, approved by alice")
	require.Contains(t, section, "Rejected by bob · a ticket on tickets.example, action <code>act-2</code>")
	require.NotContains(t, strings.ToLower(section), "comment")
}

func TestRunPageSaysWhoRejectedAndWhyAndWhatExpired(t *testing.T) {
	h := newHarness(t, testConfig(), nil)
	snap := waitingRun()
	snap.Run.Status = api.RunCompleted
	snap.Label = api.LabelRejected
	snap.Outcome = api.Outcome{
		Summary: "Nothing posted on acme/widgets#1; a comment rejected by bob; a comment expired without a decision",
		Declined: []api.DeclinedOutcome{
			{StepID: "step-3", ActionID: "act-1", Target: "acme/widgets#1", State: api.ActionRejected, By: "bob", Reason: "too <harsh>", Noun: "comment"},
			{StepID: "step-6", ActionID: "act-2", Target: "acme/widgets#1", State: api.ActionExpired, Noun: "comment"},
		},
	}
	h.runs.put("run-1", snap)

	page, _ := h.browser(map[string]string{"X-Forwarded-User": "alice"}).openRun("run-1")

	require.Contains(t, page, "Rejected by bob: too &lt;harsh&gt; · a comment on acme/widgets#1, action <code>act-1</code>")
	require.Contains(t, page, "Expired without a decision · a comment on acme/widgets#1, action <code>act-2</code>")
	require.Contains(t, page, `id="run-label">The comment was rejected`)
}

func TestRunPageOfAFailedRunSaysSoAndWhatFailed(t *testing.T) {
	h := newHarness(t, testConfig(), nil)
	snap := waitingRun()
	snap.Run.Status = api.RunFailed
	snap.Run.Error = "create_issue_comment: 403 Resource not accessible"
	snap.Label = api.LabelFailed
	snap.Outcome = api.Outcome{
		Summary: "Nothing posted on acme/widgets#1; 1 step failed; run failed: create_issue_comment: 403",
		Failed: []api.FailedOutcome{
			{StepID: "step-4", What: "create_issue_comment", Error: "403 Resource not accessible"},
			{What: "run", Error: "create_issue_comment: 403 Resource not accessible"},
		},
	}
	h.runs.put("run-1", snap)

	page, _ := h.browser(map[string]string{"X-Forwarded-User": "alice"}).openRun("run-1")

	require.Contains(t, page, `badge-failed">Failed`)
	require.Contains(t, page, `<p id="run-failed" class="alert" role="alert"><strong>This run failed.</strong> create_issue_comment: 403 Resource not accessible</p>`)
	require.Contains(t, page, "create_issue_comment (step-4) failed: 403 Resource not accessible")
	require.Contains(t, page, "The run failed: create_issue_comment: 403 Resource not accessible")
}

func TestRunPageShowsAPermissionCheckAsASentence(t *testing.T) {
	h := newHarness(t, testConfig(), nil)
	snap := waitingRun()
	check := func(seq int, login string, status api.StepStatus, permission string) api.AgentStep {
		in, _ := json.Marshal(map[string]string{"actionId": "act-1", "login": login, "repo": "acme/widgets"})
		st := api.AgentStep{ID: "step-" + login, Sequence: seq, Type: api.StepToolCall, ToolName: api.ToolCheckRepoPermission, Status: status, SafeInput: in, Attempt: 1}
		if permission != "" {
			st.SafeOutput, _ = json.Marshal(map[string]string{"permission": permission})
		}
		return st
	}
	snap.Steps = append(snap.Steps,
		check(4, "mallory", api.StepSucceeded, "read"),
		check(5, "bob", api.StepRunning, ""),
		check(6, "dana", api.StepFailed, ""))
	h.runs.put("run-1", snap)

	page, _ := h.browser(map[string]string{"X-Forwarded-User": "alice"}).openRun("run-1")

	require.Contains(t, page, "4. Checked mallory&#39;s permission: read")
	require.Contains(t, page, "5. Checking bob&#39;s permission")
	require.Contains(t, page, "6. Could not check dana&#39;s permission")
}

func TestRunPageShowsRefusalsAndLookalikesAsWarningsOnTheirOwnStep(t *testing.T) {
	h := newHarness(t, testConfig(), nil)
	snap := waitingRun()
	in, _ := json.Marshal(map[string]string{"login": "mallory"})
	out, _ := json.Marshal(map[string]string{"permission": "read"})
	snap.Steps = append(snap.Steps,
		api.AgentStep{ID: "step-4", Sequence: 4, Type: api.StepToolCall, ToolName: api.ToolCheckRepoPermission, Status: api.StepSucceeded, SafeInput: in, SafeOutput: out},
		api.AgentStep{ID: "step-5", Sequence: 5, Type: api.StepToolCall, ToolName: "create_issue_comment", Status: api.StepSucceeded})
	h.runs.put("run-1", snap)
	// The run's label was another step's when these were recorded: the page
	// must name the event's own step, not repeat the label.
	h.runs.appendEvents("run-1",
		api.Event{Sequence: 1, At: testNow, Type: api.EventSignalIgnored, StepID: "step-3", Label: api.LabelWaitingApproval,
			Detail: "mallory has read permission on acme/widgets; deciding needs write"},
		api.Event{Sequence: 2, At: testNow, Type: api.EventLookalikeIgnored, StepID: "step-5", Label: api.LabelReconciling,
			Detail: "ignored comment 7 by mallory: carries the marker but was written by mallory"})

	page, _ := h.browser(map[string]string{"X-Forwarded-User": "alice"}).openRun("run-1")

	section := page[strings.Index(page, `data-part="refusals"`):]
	section = section[:strings.Index(section, "</section>")]
	require.Contains(t, section, `class="warnings"`)
	require.Equal(t, 2, strings.Count(section, `<span class="warning-tag">Warning</span>`))
	require.Contains(t, section, `recorded in the run · <code>act-1</code>: <span class="refusal-reason">mallory has read permission on acme/widgets; deciding needs write</span> <span class="meta">(on approval)</span>`)
	require.Contains(t, section, `look-alike ignored: <span class="refusal-reason">ignored comment 7 by mallory: carries the marker but was written by mallory</span> <span class="meta">(on create_issue_comment)</span>`)
	require.NotContains(t, section, api.LabelReconciling)
}

func TestFormWithoutScriptOnADecidedActionSaysWhoDecidedIt(t *testing.T) {
	h := waitingHarness(t, nil)
	alice := h.browser(map[string]string{"X-Forwarded-User": "alice"})
	bob := h.browser(map[string]string{"X-Forwarded-User": "bob"})
	_, aliceForm := alice.openRun("run-1")
	_, bobForm := bob.openRun("run-1")
	aliceForm.Set("decision", "approve")
	bobForm.Set("decision", "approve")
	require.Equal(t, "/runs/run-1?result=202", alice.do("POST", decisionPagePath, aliceForm, nil).Header.Get("Location"))

	resp := bob.do("POST", decisionPagePath, bobForm, nil)

	require.Equal(t, "/runs/run-1?result=409", resp.Header.Get("Location"))
	page := readAll(t, bob.do("GET", "/runs/run-1?result=409", nil, nil))
	require.Contains(t, page, "Your decision changed nothing: the action was already approved by alice.")
	require.NotContains(t, page, "Not sent", "the decision changed nothing; the action's own fate is the run's")
}

// A refusal is tagged with its step as it was when the decision came: the
// comment waiting to be posted, not the comment posted since.
func TestRunPageTagsARefusalWithItsStepAsItWasThen(t *testing.T) {
	h := newHarness(t, testConfig(), nil)
	snap := completedRun()
	snap.Steps = append(snap.Steps, api.AgentStep{ID: "step-4", Sequence: 4, Type: api.StepToolCall, ToolName: "create_issue_comment",
		Words: &api.ToolWords{Noun: "comment", Verb: "post", Past: "posted"}, Status: api.StepSucceeded, ExternalResourceID: "2000000001"})
	h.runs.put("run-1", snap)
	h.runs.appendEvents("run-1",
		api.Event{Sequence: 1, At: testNow.Add(-time.Minute), Type: api.EventStepStatus, StepID: "step-4", Status: string(api.StepWaitingForApproval)},
		api.Event{Sequence: 2, At: testNow.Add(-time.Minute), Type: api.EventSignalIgnored, StepID: "step-4",
			Detail: "mallory has read permission on acme/widgets; deciding needs write"},
		api.Event{Sequence: 3, At: testNow, Type: api.EventStepStatus, StepID: "step-4", Status: string(api.StepSucceeded)})

	page, _ := h.browser(map[string]string{"X-Forwarded-User": "alice"}).openRun("run-1")

	section := page[strings.Index(page, `data-part="refusals"`):]
	section = section[:strings.Index(section, "</section>")]
	require.Contains(t, section, `deciding needs write</span> <span class="meta">(on post a comment)</span>`)
	require.NotContains(t, section, "posted comment 2000000001")
}

func TestRunPageAndHistoryOfARunThatDidNotDoItsTaskNeverShowAGreenDone(t *testing.T) {
	h := newHarness(t, testConfig(), nil)
	notDone := completedRun()
	notDone.Run.Outcome = api.OutcomeNotDone
	notDone.Label = api.LabelNotDone
	notDone.Outcome = api.Outcome{Summary: "Nothing done on acme/widgets#1; not done: could not review it"}
	h.runs.put("run-1", notDone)
	partial := completedRun()
	partial.Run.ID = "run-2"
	partial.Run.Outcome = api.OutcomePartial
	h.runs.put("run-2", partial)

	page, _ := h.browser(map[string]string{"X-Forwarded-User": "alice"}).openRun("run-1")
	require.Contains(t, page, `badge-not_done">Not done`)
	require.NotContains(t, page, `badge-completed">Done`)

	page, _ = h.browser(map[string]string{"X-Forwarded-User": "alice"}).openRun("run-2")
	require.Contains(t, page, `badge-partial">Partial`)

	history := readAll(t, h.get("/runs", map[string]string{"X-Forwarded-User": "alice"}))
	require.Contains(t, history, `badge-not_done">Not done`)
	require.Contains(t, history, `badge-partial">Partial`)
	require.NotContains(t, history, `badge-completed">Done`)
}

// An approval replayed after the action was done (a resubmitted form, a
// second tab) changed nothing; the notice says so of the decision, and
// what the run did, never "Not sent" of a message that was sent.
func TestAReplayedApprovalOfAnActionDoneSaysTheDecisionChangedNothingAndWhatWasDone(t *testing.T) {
	h := newHarness(t, testConfig(), nil)
	snap := completedRun()
	words := api.ToolWords{Noun: "message", Verb: "send", Past: "sent"}
	snap.Steps = []api.AgentStep{{ID: "step-3", Sequence: 3, Type: api.StepToolCall, ToolName: "send_message", Words: &words,
		Status: api.StepSucceeded, ExternalResourceID: "M-3", Effect: api.EffectMade}}
	h.runs.put("run-1", snap)

	page := readAll(t, h.browser(map[string]string{"X-Forwarded-User": "alice"}).do("GET", "/runs/run-1?result=409", nil, nil))

	require.Contains(t, page, "Your decision changed nothing: the action was already approved by alice. Done: sent message M-3.")
	require.NotContains(t, page, "Not sent")
}
