package approvalsrv

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-github/v62/github"
	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
	ghapi "github.com/agentrun/agentrun/github"
	"github.com/agentrun/agentrun/internal/ghsandbox"
	"github.com/agentrun/agentrun/internal/testkit"
)

const webhookSecret = "test-webhook-secret-0123456789abcdef"

// sandboxPermissions checks permissions with a real go-github client against
// the GitHub sandbox (alice admin, bob write, mallory read).
func sandboxPermissions(t *testing.T) PermissionChecker {
	t.Helper()
	sandbox := httptest.NewServer(ghsandbox.New(ghsandbox.DefaultFixture()))
	t.Cleanup(sandbox.Close)
	gh, err := ghapi.NewClient(sandbox.URL, "sandbox-token")
	require.NoError(t, err)
	return ghapi.NewAccess(gh, nil, "")
}

type commentEvent struct {
	action, repo, login, userType, body string
	number                              int
	commentID                           int64
}

func newComment(login, body string) commentEvent {
	return commentEvent{action: "created", repo: "acme/widgets", number: 1, login: login, userType: "User", body: body, commentID: 9001}
}

func (c commentEvent) payload(t *testing.T) []byte {
	t.Helper()
	owner, name, _ := stringsCut(c.repo)
	event := github.IssueCommentEvent{
		Action: github.String(c.action),
		Issue: &github.Issue{
			Number:           github.Int(c.number),
			PullRequestLinks: &github.PullRequestLinks{URL: github.String("https://api.github.com/repos/" + c.repo + "/pulls/1")},
		},
		Comment: &github.IssueComment{
			ID:   github.Int64(c.commentID),
			Body: github.String(c.body),
			User: &github.User{Login: github.String(c.login), Type: github.String(c.userType)},
		},
		Repo: &github.Repository{FullName: github.String(c.repo), Name: github.String(name), Owner: &github.User{Login: github.String(owner)}},
	}
	body, err := json.Marshal(event)
	require.NoError(t, err)
	return body
}

func stringsCut(repo string) (string, string, bool) {
	for i := range repo {
		if repo[i] == '/' {
			return repo[:i], repo[i+1:], true
		}
	}
	return repo, "", false
}

func (h *harness) deliver(event, delivery string, body []byte) *http.Response {
	h.t.Helper()
	return h.post("/github/webhook", body, map[string]string{
		"Content-Type":        "application/json",
		"X-GitHub-Event":      event,
		"X-GitHub-Delivery":   delivery,
		"X-Hub-Signature-256": testkit.GitHubSignature(webhookSecret, body),
	})
}

// requireRedeliveryApprovesOnce delivers the comment payload, then
// redelivers it as GitHub does (the same delivery ID): the first answers
// firstStatus, the redelivery 202, and the run gets one approval signal in all.
func (h *harness) requireRedeliveryApprovesOnce(payload []byte, firstStatus int) {
	h.t.Helper()
	first, again := h.deliver("issue_comment", "d-1", payload), h.deliver("issue_comment", "d-1", payload)
	require.Equal(h.t, firstStatus, first.StatusCode)
	require.Equal(h.t, http.StatusAccepted, again.StatusCode)
	require.Len(h.t, h.runs.approvalSignals(), 1)
}

func TestCommentApproveByListedApproverSendsTheSignal(t *testing.T) {
	h := waitingHarness(t, sandboxPermissions(t), "alice")

	resp := h.deliver("issue_comment", "d-1", newComment("alice", "LGTM\n/agentrun approve act-1\n").payload(t))

	require.Equal(t, http.StatusAccepted, resp.StatusCode)
	require.Equal(t, []api.ApprovalSignal{{ActionID: "act-1", ArgsHash: act1Hash, Decision: "approve", Approver: "alice", RequestID: "github-comment:9001", Channel: "GitHub comment"}},
		h.runs.approvalSignals())
}

func TestCommentRejectCarriesTheReason(t *testing.T) {
	h := waitingHarness(t, sandboxPermissions(t), "alice")

	resp := h.deliver("issue_comment", "d-1", newComment("alice", "/agentrun reject act-1 tone is too harsh").payload(t))

	require.Equal(t, http.StatusAccepted, resp.StatusCode)
	require.Equal(t, "tone is too harsh", h.runs.approvalSignals()[0].Reason)
	require.Equal(t, "reject", h.runs.approvalSignals()[0].Decision)
}

func TestCommentApproveOnRunWithoutApproversNeedsWritePermission(t *testing.T) {
	cases := map[string]struct {
		login string
		want  int
	}{
		"admin":              {"alice", http.StatusAccepted},
		"write":              {"bob", http.StatusAccepted},
		"read":               {"mallory", http.StatusForbidden},
		"not a collaborator": {"eve", http.StatusForbidden},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			h := waitingHarness(t, sandboxPermissions(t))

			resp := h.deliver("issue_comment", "d-1", newComment(c.login, "/agentrun approve act-1").payload(t))

			require.Equal(t, c.want, resp.StatusCode)
			if c.want == http.StatusAccepted {
				require.Len(t, h.runs.approvalSignals(), 1)
			} else {
				require.Contains(t, replyOf(t, resp)["error"], "approving needs write")
				require.Empty(t, h.runs.approvalSignals())
			}
		})
	}
}

func TestRefusedCommentIsShownOnTheRunsPage(t *testing.T) {
	h := waitingHarness(t, sandboxPermissions(t))

	resp := h.deliver("issue_comment", "d-1", newComment("mallory", "/agentrun approve act-1").payload(t))
	require.Equal(t, http.StatusForbidden, resp.StatusCode)

	page := readAll(t, h.get("/runs/run-1", asSandboxReader))
	require.Contains(t, page, "mallory has read permission on acme/widgets; approving needs write")
	require.Contains(t, page, "GitHub comment")
}

func TestCommentByNonApproverOfARunWithApproversAnswers403(t *testing.T) {
	h := waitingHarness(t, sandboxPermissions(t), "alice")

	resp := h.deliver("issue_comment", "d-1", newComment("bob", "/agentrun approve act-1").payload(t))

	require.Equal(t, http.StatusForbidden, resp.StatusCode)
	require.Equal(t, "bob is not an approver of this run", replyOf(t, resp)["error"])
	require.Empty(t, h.runs.approvalSignals())
}

func TestCommentByABotCannotDecide(t *testing.T) {
	h := waitingHarness(t, sandboxPermissions(t))
	bot := newComment("agentrun[bot]", "/agentrun approve act-1")
	bot.userType = "Bot"
	agentOwn := newComment("bob", "Review\n/agentrun approve act-1\n"+api.OperationMarker("op-1"))

	botResp := h.deliver("issue_comment", "d-1", bot.payload(t))
	ownResp := h.deliver("issue_comment", "d-2", agentOwn.payload(t))

	require.Equal(t, http.StatusForbidden, botResp.StatusCode)
	require.Equal(t, http.StatusForbidden, ownResp.StatusCode)
	require.Empty(t, h.runs.approvalSignals())
}

func TestCommandOnAnotherPullRequestIsRefusedAndShownOnTheRun(t *testing.T) {
	h := waitingHarness(t, sandboxPermissions(t), "alice")
	elsewhere := newComment("alice", "/agentrun approve act-1")
	elsewhere.number = 2

	resp := h.deliver("issue_comment", "d-1", elsewhere.payload(t))

	require.Equal(t, http.StatusNotFound, resp.StatusCode)
	require.Empty(t, h.runs.approvalSignals())
	require.Contains(t, readAll(t, h.get("/runs/run-1", asSandboxReader)), "posted on acme/widgets#2")
}

func TestCommandForAnActionNoRunHasAnswers404(t *testing.T) {
	h := waitingHarness(t, sandboxPermissions(t), "alice")

	resp := h.deliver("issue_comment", "d-1", newComment("alice", "/agentrun approve act-404").payload(t))

	require.Equal(t, http.StatusNotFound, resp.StatusCode)
	require.Empty(t, h.runs.approvalSignals())
}

func TestRedeliveryAnswersAsTheFirstAndSendsNothingNew(t *testing.T) {
	h := waitingHarness(t, sandboxPermissions(t), "alice")
	payload := newComment("alice", "/agentrun approve act-1").payload(t)

	h.requireRedeliveryApprovesOnce(payload, http.StatusAccepted)
}

func TestOtherEventsAndCommentsWithoutCommandAnswer204(t *testing.T) {
	cases := map[string]struct {
		event string
		body  []byte
	}{
		"ping":                  {"ping", []byte(`{"zen":"Keep it logically awesome."}`)},
		"pull request":          {"pull_request", []byte(`{"action":"opened"}`)},
		"comment, no command":   {"issue_comment", newComment("alice", "Looks fine to me").payload(t)},
		"command in code block": {"issue_comment", newComment("alice", "```\n/agentrun approve act-1\n```").payload(t)},
		"quoted command":        {"issue_comment", newComment("alice", "> /agentrun approve act-1").payload(t)},
		"edited comment":        {"issue_comment", commentEvent{action: "edited", repo: "acme/widgets", number: 1, login: "alice", body: "/agentrun approve act-1"}.payload(t)},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			h := waitingHarness(t, sandboxPermissions(t), "alice")

			resp := h.deliver(c.event, "d-1", c.body)

			require.Equal(t, http.StatusNoContent, resp.StatusCode)
			require.Empty(t, h.runs.approvalSignals())
		})
	}
}

func TestMalformedCommandAnswers400(t *testing.T) {
	h := waitingHarness(t, sandboxPermissions(t), "alice")

	resp := h.deliver("issue_comment", "d-1", newComment("alice", "/agentrun reject act-1").payload(t))

	require.Equal(t, http.StatusBadRequest, resp.StatusCode)
	require.Contains(t, replyOf(t, resp)["error"], "usage: /agentrun reject <actionId> <reason>")
	require.Empty(t, h.runs.approvalSignals())
}

func TestWebhookWithBadSignatureAnswers401(t *testing.T) {
	payload := newComment("alice", "/agentrun approve act-1").payload(t)
	cases := map[string]map[string]string{
		"wrong secret":      {"X-Hub-Signature-256": testkit.GitHubSignature("not-the-secret", payload)},
		"no signature":      {},
		"only SHA-1 header": {"X-Hub-Signature": "sha1=0000000000000000000000000000000000000000"},
	}
	for name, sigHeaders := range cases {
		t.Run(name, func(t *testing.T) {
			h := waitingHarness(t, sandboxPermissions(t), "alice")
			headers := map[string]string{"Content-Type": "application/json", "X-GitHub-Event": "issue_comment", "X-GitHub-Delivery": "d-1"}
			for k, v := range sigHeaders {
				headers[k] = v
			}

			resp := h.post("/github/webhook", payload, headers)

			require.Equal(t, http.StatusUnauthorized, resp.StatusCode)
			require.Empty(t, h.runs.approvalSignals())
		})
	}
}

func TestWebhookWithoutDeliveryIDAnswers400(t *testing.T) {
	h := newHarness(t, testConfig(), sandboxPermissions(t))
	payload := newComment("alice", "/agentrun approve act-1").payload(t)

	resp := h.post("/github/webhook", payload, map[string]string{
		"Content-Type": "application/json", "X-GitHub-Event": "issue_comment", "X-Hub-Signature-256": testkit.GitHubSignature(webhookSecret, payload),
	})

	require.Equal(t, http.StatusBadRequest, resp.StatusCode)
}

func TestWebhookWhileGitHubIsDownAnswers502AndARedeliveryWorks(t *testing.T) {
	sandbox := ghsandbox.New(ghsandbox.DefaultFixture())
	ts := httptest.NewServer(sandbox)
	t.Cleanup(ts.Close)
	gh, err := ghapi.NewClient(ts.URL, "sandbox-token")
	require.NoError(t, err)
	require.NoError(t, sandbox.AddFault(ghsandbox.Fault{Op: ghsandbox.OpGetPermission, Mode: ghsandbox.ModeStatus, Status: 502, Count: 1}))
	h := waitingHarness(t, ghapi.NewAccess(gh, nil, ""))
	payload := newComment("bob", "/agentrun approve act-1").payload(t)

	h.requireRedeliveryApprovesOnce(payload, http.StatusBadGateway)
}

func TestWebhookWhileTemporalIsUnreachableAnswers503(t *testing.T) {
	h := waitingHarness(t, sandboxPermissions(t), "alice")
	h.runs.setUnavailable(true)

	resp := h.deliver("issue_comment", "d-1", newComment("alice", "/agentrun approve act-1").payload(t))

	require.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
	require.Equal(t, "temporal is unreachable; try again later", replyOf(t, resp)["error"])
}

func TestWebhookWithAnUnsupportedContentTypeAnswers415(t *testing.T) {
	h := newHarness(t, testConfig(), sandboxPermissions(t))
	payload := newComment("alice", "/agentrun approve act-1").payload(t)

	resp := h.post("/github/webhook", payload, map[string]string{
		"Content-Type": "text/plain", "X-GitHub-Event": "issue_comment", "X-GitHub-Delivery": "d-1",
		"X-Hub-Signature-256": testkit.GitHubSignature(webhookSecret, payload),
	})

	require.Equal(t, http.StatusUnsupportedMediaType, resp.StatusCode)
}

func TestWebhookInFormEncodingIsAccepted(t *testing.T) {
	h := waitingHarness(t, sandboxPermissions(t), "alice")
	form := []byte("payload=" + url.QueryEscape(string(newComment("alice", "/agentrun approve act-1").payload(t))))

	resp := h.post("/github/webhook", form, map[string]string{
		"Content-Type": "application/x-www-form-urlencoded", "X-GitHub-Event": "issue_comment", "X-GitHub-Delivery": "d-1",
		"X-Hub-Signature-256": testkit.GitHubSignature(webhookSecret, form),
	})

	require.Equal(t, http.StatusAccepted, resp.StatusCode)
	require.Len(t, h.runs.approvalSignals(), 1)
}

// permissionCounter counts permission checks, the GitHub work a command does.
type permissionCounter struct {
	PermissionChecker
	mu    sync.Mutex
	calls int
}

func (p *permissionCounter) Permission(ctx context.Context, owner, repo, login string) (string, error) {
	p.mu.Lock()
	p.calls++
	p.mu.Unlock()
	return p.PermissionChecker.Permission(ctx, owner, repo, login)
}

func (p *permissionCounter) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.calls
}

// work is everything a command costs: Temporal calls, refusals recorded in
// the run, approval signals and GitHub permission checks.
type work struct{ snapshots, lookups, refusals, approvals, permissions int }

func (h *harness) work(perms *permissionCounter) work {
	snapshots, _, lookups, _ := h.runs.counts()
	return work{snapshots, lookups, len(h.runs.refusalSignals()), len(h.runs.approvalSignals()), perms.count()}
}

func TestRedeliveryOfARefusedCommandAnswersAsTheFirstAndDoesNoNewWork(t *testing.T) {
	perms := &permissionCounter{PermissionChecker: sandboxPermissions(t)}
	h := waitingHarness(t, perms)
	payload := newComment("mallory", "/agentrun approve act-1").payload(t)

	first := h.deliver("issue_comment", "d-1", payload)
	firstAnswer := replyOf(t, first)
	before := h.work(perms)
	again := h.deliver("issue_comment", "d-1", payload)

	require.Equal(t, http.StatusForbidden, first.StatusCode)
	require.Equal(t, work{snapshots: 1, lookups: 1, refusals: 1, permissions: 1}, before)
	require.Equal(t, http.StatusForbidden, again.StatusCode)
	require.Equal(t, firstAnswer, replyOf(t, again))
	require.Equal(t, before, h.work(perms), "the redelivery did new work")
}

func TestCommentRedeliveredWithAFreshDeliveryIDActsOnce(t *testing.T) {
	perms := &permissionCounter{PermissionChecker: sandboxPermissions(t)}
	h := waitingHarness(t, perms)
	payload := newComment("bob", "/agentrun approve act-1").payload(t)

	first := h.deliver("issue_comment", "d-1", payload)
	before := h.work(perms)
	again := h.deliver("issue_comment", "d-2", payload)

	require.Equal(t, http.StatusAccepted, first.StatusCode)
	require.Equal(t, http.StatusAccepted, again.StatusCode)
	require.Equal(t, before, h.work(perms))
	require.Len(t, h.runs.approvalSignals(), 1)
}

func TestCommentFindsItsRunWithOneLookupAndOneQuery(t *testing.T) {
	h := newHarness(t, testConfig(), sandboxPermissions(t))
	for i := 0; i < 20; i++ {
		h.runs.put(fmt.Sprintf("run-other-%d", i), runWithAction(fmt.Sprintf("act-other-%d", i)))
	}
	h.runs.put("run-1", waitingRun("alice"))

	resp := h.deliver("issue_comment", "d-1", newComment("alice", "/agentrun approve act-1").payload(t))

	require.Equal(t, http.StatusAccepted, resp.StatusCode)
	snapshots, _, lookups, listings := h.runs.counts()
	require.Equal(t, []int{1, 1, 0}, []int{snapshots, lookups, listings},
		"one visibility lookup, one run query, no listing of open runs")
}

func TestCommandWithAMalformedActionIDAnswers400BeforeAnyQuery(t *testing.T) {
	for _, id := range []string{"act-1'OR'1'='1", "run-1", "act-", "act-" + strings.Repeat("a", 61), "act-é", "act-1.2"} {
		t.Run(id, func(t *testing.T) {
			h := waitingHarness(t, sandboxPermissions(t), "alice")

			resp := h.deliver("issue_comment", "d-1", newComment("alice", "/agentrun approve "+id).payload(t))

			require.Equal(t, http.StatusBadRequest, resp.StatusCode)
			require.Contains(t, replyOf(t, resp)["error"], "the action ID must look like act-0123456789abcdef")
			require.Equal(t, work{}, h.work(&permissionCounter{}))
		})
	}
}

func TestCommandOnARunThatClosedIsAnsweredFromTheRun(t *testing.T) {
	h := newHarness(t, testConfig(), sandboxPermissions(t))
	snap := waitingRun("alice")
	snap.Run.Status = api.RunCompleted
	snap.PendingAction.State = api.ActionExpired
	h.runs.put("run-1", snap)

	resp := h.deliver("issue_comment", "d-1", newComment("alice", "/agentrun approve act-1").payload(t))

	require.Equal(t, http.StatusConflict, resp.StatusCode)
	require.Equal(t, "the action expired at 2025-03-05T11:00:00Z without a decision", replyOf(t, resp)["error"])
	require.Empty(t, h.runs.approvalSignals())
}

// runWithAction is waitingRun on another pull request, waiting on actionID.
func runWithAction(actionID string) api.RunSnapshot {
	snap := waitingRun("alice")
	snap.Run.PullNumber = 7
	action := *snap.PendingAction
	action.ID = actionID
	snap.PendingAction = &action
	snap.Actions = []api.PendingAction{action}
	return snap
}

func TestCommandWhoseIndexedRunIsGoneAnswers404(t *testing.T) {
	h := newHarness(t, testConfig(), sandboxPermissions(t))
	h.runs.staleIndex = map[string]string{"act-1": "run-deleted"}

	resp := h.deliver("issue_comment", "d-1", newComment("alice", "/agentrun approve act-1").payload(t))

	require.Equal(t, http.StatusNotFound, resp.StatusCode)
	require.Equal(t, "no run of acme/widgets#1 has action act-1", replyOf(t, resp)["error"])
	require.Empty(t, h.runs.refusalSignals())
}

func TestCommentOnARunWithTwoWaitingActionsDecidesTheNamedOneBoundToItsInput(t *testing.T) {
	h := newHarness(t, testConfig(), sandboxPermissions(t))
	h.runs.put("run-1", twoWaitingRun(true, "alice"))

	resp := h.deliver("issue_comment", "d-1", newComment("alice", "/agentrun approve act-2").payload(t))

	require.Equal(t, http.StatusAccepted, resp.StatusCode)
	require.Equal(t, []api.ApprovalSignal{{ActionID: "act-2", ArgsHash: act2Hash, Decision: "approve", Approver: "alice", RequestID: "github-comment:9001", Channel: "GitHub comment"}},
		h.runs.approvalSignals(), "the comment names only the action; the server binds it to the input the run shows")
}
