package approvalsrv

import (
	"context"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
	ghapi "github.com/agentrun/agentrun/github"
	"github.com/agentrun/agentrun/internal/ghsandbox"
)

// sandboxHead is the sandbox's head of acme/widgets#1, which the example
// deliveries were pointed at (testdata/webhooks/README.md).
const sandboxHead = "9f3c2a71d4e85b06c1f7a2d39e4b58c60a1d7e42"

// exampleDelivery is GitHub's example pull_request delivery of action
// (octokit/webhooks), pointed at the sandbox's acme/widgets#1; edit, when
// given, changes it further as a test's case needs.
func exampleDelivery(t *testing.T, action string, edit func(string) string) []byte {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "webhooks", "pull_request."+action+".json"))
	require.NoError(t, err)
	if edit != nil {
		return []byte(edit(string(raw)))
	}
	return raw
}

func autoReview(t *testing.T, v string) Config {
	t.Helper()
	cfg := testConfig()
	var err error
	cfg.AutoReview, err = ParseAutoReview(v)
	require.NoError(t, err)
	return cfg
}

// sandboxAccess answers permissions and pull requests from the sandbox
// over a real go-github client (alice admin, bob write, mallory read).
type sandboxAccess struct{ *ghapi.Access }

func (a sandboxAccess) PullHead(ctx context.Context, owner, repo string, number int, installation int64) (PullHead, error) {
	sha, draft, open, err := a.Access.PullHead(ctx, owner, repo, number, installation)
	return PullHead{SHA: sha, Draft: draft, Open: open}, err
}

func sandboxPulls(t *testing.T) sandboxAccess {
	return sandboxAccess{sandboxPermissions(t).(*ghapi.Access)}
}

func TestPullRequestDeliveriesChangeNothingWithoutAutoReview(t *testing.T) {
	h := newHarness(t, testConfig(), nil)
	for _, action := range []string{"opened", "synchronize", "closed"} {
		resp := h.deliver("pull_request", "d-"+action, exampleDelivery(t, action, nil))
		require.Equal(t, http.StatusNoContent, resp.StatusCode, action)
	}
	require.Empty(t, h.runs.startRequests())
}

func TestOpenedDeliveryStartsTheReviewOfItsHeadWithItsInstallation(t *testing.T) {
	h := newHarness(t, autoReview(t, "acme/widgets"), nil)

	resp := h.deliver("pull_request", "d-1", exampleDelivery(t, "opened", nil))

	require.Equal(t, http.StatusAccepted, resp.StatusCode)
	starts := h.runs.startRequests()
	require.Len(t, starts, 1)
	require.Equal(t, PullReviewRunID("acme/widgets", 1, sandboxHead, api.DefaultAgent), starts[0].RunID)
	require.Equal(t, "acme/widgets", starts[0].Input.Repo)
	require.Equal(t, 1, starts[0].Input.PullNumber)
	require.Equal(t, int64(1), starts[0].Input.InstallationID, "the delivery's installation.id is recorded in the run's input")
	require.Equal(t, "Codertocat", starts[0].Input.UserID, "the run acts for the delivery's sender")
	require.Contains(t, replyOf(t, resp)["status"], "waits for a writer's approval")
}

func TestOnlyTheActionsThatChangeWhatToReviewStartOne(t *testing.T) {
	h := newHarness(t, autoReview(t, "acme/widgets"), nil)
	for action, want := range map[string]int{"opened": 202, "reopened": 202, "synchronize": 202, "ready_for_review": 202,
		"labeled": 204, "assigned": 204, "edited": 204, "closed": 204} {
		payload := exampleDelivery(t, "opened", func(s string) string {
			return strings.Replace(s, `"action": "opened"`, `"action": "`+action+`"`, 1)
		})
		if action == "closed" {
			payload = exampleDelivery(t, "closed", nil)
		}
		require.Equal(t, want, h.deliver("pull_request", "d-"+action, payload).StatusCode, action)
	}
	require.Len(t, h.runs.startRequests(), 4)
}

func TestUnlistedRepositoryAndDraftsAreNotReviewedUnlessTheEntrySays(t *testing.T) {
	draft := func(s string) string { return strings.Replace(s, `"draft": false`, `"draft": true`, 1) }

	h := newHarness(t, autoReview(t, "acme/gadgets"), nil)
	require.Equal(t, http.StatusNoContent, h.deliver("pull_request", "d-1", exampleDelivery(t, "opened", nil)).StatusCode)

	h = newHarness(t, autoReview(t, "acme/widgets=triage"), nil)
	resp := h.deliver("pull_request", "d-2", exampleDelivery(t, "opened", draft))
	require.Equal(t, http.StatusAccepted, resp.StatusCode)
	require.Contains(t, replyOf(t, resp)["status"], "is a draft")
	require.Empty(t, h.runs.startRequests())

	h = newHarness(t, autoReview(t, "acme/gadgets, *=triage:drafts"), nil)
	require.Equal(t, http.StatusAccepted, h.deliver("pull_request", "d-3", exampleDelivery(t, "opened", draft)).StatusCode)
	starts := h.runs.startRequests()
	require.Len(t, starts, 1)
	require.Equal(t, "triage", starts[0].Input.Agent)
	require.Equal(t, PullReviewRunID("acme/widgets", 1, sandboxHead, "triage"), starts[0].RunID)
}

func TestReviewRunIDIsOnePerRepoPullHeadAndAgent(t *testing.T) {
	id := PullReviewRunID("acme/widgets", 1, sandboxHead, "pr-review")
	require.Equal(t, id, PullReviewRunID("ACME/Widgets", 1, strings.ToUpper(sandboxHead), "pr-review"))
	for _, other := range []string{
		PullReviewRunID("acme/gadgets", 1, sandboxHead, "pr-review"),
		PullReviewRunID("acme/widgets", 2, sandboxHead, "pr-review"),
		PullReviewRunID("acme/widgets", 1, strings.Repeat("a", 40), "pr-review"),
		PullReviewRunID("acme/widgets", 1, sandboxHead, "triage"),
	} {
		require.NotEqual(t, id, other)
	}
}

func TestAutoReviewSettingRefusesWhatItCannotDo(t *testing.T) {
	for v, want := range map[string]string{
		"acme":                       "want OWNER/NAME",
		"acme/widgets=Bad Agent":     "agent",
		"acme/widgets:sometimes":     `unknown option "sometimes"`,
		"acme/widgets:post:ask":      "choose one",
		"acme/widgets, ACME/widgets": "listed twice",
	} {
		_, err := ParseAutoReview(v)
		require.ErrorContains(t, err, want, v)
	}
	a, err := ParseAutoReview("acme/widgets=triage:drafts:ask *")
	require.NoError(t, err)
	require.Equal(t, AutoReview{{Repo: "acme/widgets", Agent: "triage", Mode: ModeAsk, Drafts: true}, {Repo: "*", Mode: ModeAsk}}, a)
	a, err = ParseAutoReview("acme/widgets:post")
	require.NoError(t, err)
	require.Equal(t, AutoReview{{Repo: "acme/widgets", Mode: ModePost}}, a)
}

// An entry's mode is decided at the run's start and recorded in its input:
// post lifts the gate for the run it starts, ask (and every other start)
// leaves it.
func TestAPostEntryRecordsTheLiftedGateInTheRunsInputAndAnAskEntryDoesNot(t *testing.T) {
	h := newHarness(t, autoReview(t, "acme/widgets:post"), nil)
	resp := h.deliver("pull_request", "d-1", exampleDelivery(t, "opened", nil))
	require.Equal(t, http.StatusAccepted, resp.StatusCode)
	require.Contains(t, replyOf(t, resp)["status"], "it posts without asking (AGENTRUN_AUTO_REVIEW acme/widgets=pr-review:post)")
	starts := h.runs.startRequests()
	require.Len(t, starts, 1)
	require.Equal(t, "AGENTRUN_AUTO_REVIEW acme/widgets=pr-review:post", starts[0].Input.PostsWithoutAsking)

	h = newHarness(t, autoReview(t, "acme/widgets"), nil)
	resp = h.deliver("pull_request", "d-1", exampleDelivery(t, "opened", nil))
	require.Contains(t, replyOf(t, resp)["status"], "it waits for a writer's approval")
	starts = h.runs.startRequests()
	require.Len(t, starts, 1)
	require.Empty(t, starts[0].Input.PostsWithoutAsking)
}

func TestAWritersReviewCommandStartsOneAndAReadersIsRefusedSayingWhy(t *testing.T) {
	pulls := sandboxPulls(t)
	h := serve(t, autoReview(t, "acme/widgets"), Options{Runs: newFakeRuns(), Permissions: pulls, Pulls: pulls})
	h.runs = h.server.runs.(*fakeRuns)

	reader := newComment("mallory", "/agentrun review")
	resp := h.deliver("issue_comment", "d-1", reader.payload(t))
	require.Equal(t, http.StatusForbidden, resp.StatusCode)
	why := replyOf(t, resp)["error"]
	require.Contains(t, why, "mallory")
	require.Contains(t, why, "read")
	require.Empty(t, h.runs.startRequests())

	writer := newComment("bob", "please have a look\n/agentrun review\n")
	writer.commentID = 9002
	resp = h.deliver("issue_comment", "d-2", writer.payload(t))
	require.Equal(t, http.StatusAccepted, resp.StatusCode, "%v", replyOf(t, resp))
	again := h.deliver("issue_comment", "d-2", writer.payload(t))
	require.Equal(t, http.StatusAccepted, again.StatusCode)
	starts := h.runs.startRequests()
	require.Len(t, starts, 1, "a redelivered command starts nothing more")
	require.Equal(t, PullReviewRunID("acme/widgets", 1, sandboxHead, api.DefaultAgent), starts[0].RunID)
	require.Equal(t, "bob", starts[0].Input.UserID)

	elsewhere := newComment("bob", "/agentrun review")
	elsewhere.repo, elsewhere.commentID = "acme/gadgets", 9003
	resp = h.deliver("issue_comment", "d-3", elsewhere.payload(t))
	require.Equal(t, http.StatusForbidden, resp.StatusCode)
	require.Contains(t, replyOf(t, resp)["error"], "AGENTRUN_AUTO_REVIEW")
}

// The sandbox delivers pull_request events to the approval server as
// GitHub would, signed: opening the pull request starts the review of its
// head, a push the review of the new head, a close nothing.
func TestSandboxPullRequestDeliveriesStartTheReviewOfEachHead(t *testing.T) {
	h := newHarness(t, autoReview(t, "acme/widgets"), nil)
	sb := ghsandbox.New(ghsandbox.DefaultFixture())
	sandbox := httptest.NewServer(sb)
	t.Cleanup(sandbox.Close)
	sb.SetWebhook(ghsandbox.Webhook{URL: h.http.URL + "/github/webhook", Secret: webhookSecret})
	event := func(ev ghsandbox.PullEvent) ghsandbox.PullEventAnswer {
		t.Helper()
		a, err := sb.ApplyPullEvent(t.Context(), ghsandbox.Bases{Web: sandbox.URL, API: sandbox.URL}, "acme", "widgets", 1, ev)
		require.NoError(t, err)
		return a
	}

	opened := event(ghsandbox.PullEvent{Action: ghsandbox.PullOpened})
	require.Equal(t, http.StatusAccepted, opened.Delivered, opened.DeliveryError)
	require.Equal(t, sandboxHead, opened.Head)

	pushed := event(ghsandbox.PullEvent{Action: ghsandbox.PullSynchronize, Sender: "bob", Commits: []ghsandbox.PushedCommit{
		{Message: "Handle the empty cache", Files: []ghsandbox.FixtureFile{{Filename: "cache/empty.go", Status: "added", Patch: "@@ -0,0 +1 @@\n+package cache"}}},
	}})
	require.Equal(t, http.StatusAccepted, pushed.Delivered, pushed.DeliveryError)
	require.Equal(t, sandboxHead, pushed.Before)
	require.NotEqual(t, sandboxHead, pushed.Head)

	closed := event(ghsandbox.PullEvent{Action: ghsandbox.PullClosed})
	require.Equal(t, http.StatusNoContent, closed.Delivered)

	starts := h.runs.startRequests()
	require.Len(t, starts, 2)
	require.Equal(t, PullReviewRunID("acme/widgets", 1, sandboxHead, api.DefaultAgent), starts[0].RunID)
	require.Equal(t, PullReviewRunID("acme/widgets", 1, pushed.Head, api.DefaultAgent), starts[1].RunID)
	require.Equal(t, "bob", starts[1].Input.UserID)

	superseded := h.runs.supersededRuns()
	require.Len(t, superseded, 2)
	bySync := superseded[starts[0].RunID]
	require.Len(t, bySync, 1, "the new head supersedes the review of the old one")
	require.Equal(t, "superseded by "+pushed.Head, bySync[0].Reason())
	require.Equal(t, starts[1].RunID, bySync[0].By, "and names the run that took over")
	byClose := superseded[starts[1].RunID]
	require.Len(t, byClose, 1)
	require.Equal(t, "pull request closed", byClose[0].Reason())
}

func (f *fakeRuns) Supersede(ctx context.Context, runID string, sig api.SupersedeSignal) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.supersedes == nil {
		f.supersedes = map[string][]api.SupersedeSignal{}
	}
	f.supersedes[runID] = append(f.supersedes[runID], sig)
	return nil
}

func (f *fakeRuns) supersededRuns() map[string][]api.SupersedeSignal {
	f.mu.Lock()
	defer f.mu.Unlock()
	return maps.Clone(f.supersedes)
}

// A push on a draft starts no review, but the review of the old head is
// stale all the same.
func TestAPushOnADraftSupersedesTheOldReviewWithoutStartingOne(t *testing.T) {
	h := newHarness(t, autoReview(t, "acme/widgets"), nil)
	next := strings.Repeat("d", 40)
	payload := exampleDelivery(t, "synchronize", func(s string) string {
		s = strings.Replace(s, `"draft": false`, `"draft": true`, 1)
		s = strings.Replace(s, `"before": "`, `"before": "`+sandboxHead+`", "x_before": "`, 1)
		return strings.ReplaceAll(s, `"sha": "`+sandboxHead+`"`, `"sha": "`+next+`"`)
	})
	resp := h.deliver("pull_request", "d-1", payload)
	require.Equal(t, http.StatusAccepted, resp.StatusCode)
	require.Empty(t, h.runs.startRequests())
	superseded := h.runs.supersededRuns()[PullReviewRunID("acme/widgets", 1, sandboxHead, api.DefaultAgent)]
	require.Len(t, superseded, 1)
	require.Equal(t, "superseded by "+next, superseded[0].Reason())
}

// What a push reviews depends on what became of the previous head's
// review: posted, the push reads only what it added and marks the comment
// superseded; still waiting for a person, the push supersedes it unposted
// and reads only what it added, naming that run's draft; rejected or
// expired, it reads from the head that review read from; unknown, the
// whole pull request.
func TestAPushReadsSinceTheLastHeadReviewedPostedOrDraftedAndWaiting(t *testing.T) {
	older := strings.Repeat("a", 40)
	next := strings.Repeat("d", 40)
	prev := PullReviewRunID("acme/widgets", 1, sandboxHead, api.DefaultAgent)
	cases := map[string]struct {
		snap                  *api.RunSnapshot
		wantHead, wantDraft   string
		wantSupersedesComment int64
	}{
		"posted": {snap: &api.RunSnapshot{Run: api.Run{Status: api.RunCompleted, ReviewedHead: older},
			Outcome: api.Outcome{Posted: []api.PostedOutcome{{CommentID: 77}}}}, wantHead: sandboxHead, wantSupersedesComment: 77},
		"waiting for a person": {snap: &api.RunSnapshot{Run: api.Run{Status: api.RunWaitingForUser, ReviewedHead: older},
			PendingAction: &api.PendingAction{State: api.ActionWaiting}}, wantHead: sandboxHead, wantDraft: prev},
		"rejected": {snap: &api.RunSnapshot{Run: api.Run{Status: api.RunCompleted, ReviewedHead: older, ReviewedDraft: "run-older"},
			PendingAction: &api.PendingAction{State: api.ActionRejected}}, wantHead: older, wantDraft: "run-older"},
		"still deciding, no draft yet": {snap: &api.RunSnapshot{Run: api.Run{Status: api.RunRunning, ReviewedHead: older}}, wantHead: older},
		"first review rejected":        {snap: &api.RunSnapshot{Run: api.Run{Status: api.RunCompleted}, PendingAction: &api.PendingAction{State: api.ActionRejected}}},
		"no such run":                  {},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			h := newHarness(t, autoReview(t, "acme/widgets"), nil)
			if c.snap != nil {
				h.runs.mu.Lock()
				h.runs.snaps[prev] = *c.snap
				h.runs.mu.Unlock()
			}
			payload := exampleDelivery(t, "synchronize", func(s string) string {
				s = strings.Replace(s, `"before": "`, `"before": "`+sandboxHead+`", "x_before": "`, 1)
				return strings.ReplaceAll(s, `"sha": "`+sandboxHead+`"`, `"sha": "`+next+`"`)
			})
			require.Equal(t, http.StatusAccepted, h.deliver("pull_request", "d-1", payload).StatusCode)
			starts := h.runs.startRequests()
			require.Len(t, starts, 1)
			in := starts[0].Input
			require.Equal(t, next, in.Head)
			require.Equal(t, c.wantHead, in.ReviewedHead)
			require.Equal(t, c.wantDraft, in.ReviewedDraft)
			if c.wantSupersedesComment == 0 {
				require.Nil(t, in.Supersedes)
			} else {
				require.Equal(t, &api.SupersededReview{Run: prev, CommentID: c.wantSupersedesComment}, in.Supersedes)
			}
		})
	}
}

// Only a review its close ended with nothing done and nothing in doubt is
// reviewed again on reopen: a new run under the same ID reuses its
// operationKeys, so a step left in doubt keeps the old run the head's.
func TestOnlyAReviewTheCloseEndedCleanlyIsReviewedAgainOnReopen(t *testing.T) {
	h := newHarness(t, autoReview(t, "acme/widgets"), nil)
	closed := &api.Cancellation{Superseded: true, Closed: true}
	cases := map[string]struct {
		snap api.RunSnapshot
		want bool
	}{
		"ended by the close":  {api.RunSnapshot{Cancel: closed}, true},
		"posted before":       {api.RunSnapshot{Cancel: closed, Outcome: api.Outcome{Posted: []api.PostedOutcome{{CommentID: 1}}}}, false},
		"a step in doubt":     {api.RunSnapshot{Cancel: closed, Steps: []api.AgentStep{{ID: "step-5", Status: api.StepOutcomeUnknown, OperationKey: "r:5"}}}, false},
		"superseded by push":  {api.RunSnapshot{Cancel: &api.Cancellation{Superseded: true}}, false},
		"cancelled by a user": {api.RunSnapshot{Cancel: &api.Cancellation{By: "alice"}}, false},
		"completed":           {api.RunSnapshot{}, false},
	}
	for name, c := range cases {
		h.runs.mu.Lock()
		h.runs.snaps["run-x"] = c.snap
		h.runs.mu.Unlock()
		require.Equal(t, c.want, h.server.endedByClose(t.Context(), "run-x"), name)
	}
	require.False(t, h.server.endedByClose(t.Context(), "run-missing"))
}
