package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v62/github"
	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"

	"github.com/agentrun/agentrun/internal/approvalsrv"
	"github.com/agentrun/agentrun/internal/testkit"
	"github.com/agentrun/agentrun/runclient"
)

func TestSignedApproveOnARealRunPostsExactlyOneComment(t *testing.T) {
	s := startStack(t)
	action := s.startReview("review-signed-1", "alice")
	require.Empty(t, s.postedReviews(), "nothing is posted before approval")
	require.Eventually(t, func() bool { return s.inboxHas(action.ID) }, waitLong, 100*time.Millisecond,
		"the inbox never listed action %s", action.ID)

	req := approvalsrv.Decision{Decision: "approve", Approver: "alice", RequestID: "e2e-1"}
	code, answer := s.signedDecision("review-signed-1", action.ID, req)
	require.Equal(t, http.StatusAccepted, code, answer)
	repeatCode, _ := s.signedDecision("review-signed-1", action.ID, req)
	require.Equal(t, http.StatusAccepted, repeatCode)

	ids := s.followEvents("review-signed-1")
	for i := range ids {
		require.EqualValues(t, i+1, ids[i], "event ids must have no gap and no duplicate")
	}
	snap := s.readableSnapshot("review-signed-1")
	require.Equal(t, api.RunCompleted, snap.Run.Status)
	require.Equal(t, api.ActionApproved, snap.PendingAction.State)
	require.Equal(t, "alice", snap.PendingAction.DecidedBy)
	posted := s.postedReviews()
	require.Len(t, posted, 1)
	require.Contains(t, posted[0].Body, action.Preview)

	lateCode, lateAnswer := s.signedDecision("review-signed-1", action.ID,
		approvalsrv.Decision{Decision: "reject", Approver: "alice", Reason: "too late", RequestID: "e2e-2"})
	require.Equal(t, http.StatusConflict, lateCode)
	require.Contains(t, lateAnswer["error"], "already approved by alice")
	require.Len(t, s.postedReviews(), 1)
}

func TestWebhookApprovalByAWriterPostsOneCommentAfterAReaderIsRefused(t *testing.T) {
	s := startStack(t)
	action := s.startReview("review-webhook-1") // no approvers: write permission decides

	refusedCode, refused := s.deliverComment("delivery-1", 501, "mallory", "/agentrun approve "+action.ID)
	require.Equal(t, http.StatusForbidden, refusedCode)
	require.Contains(t, refused["error"], "mallory has read permission on acme/widgets")
	const reason = "mallory has read permission on acme/widgets; approving needs write"
	page := s.page("/runs/review-webhook-1")
	require.Contains(t, page, reason)
	snap, _ := s.snapshot("review-webhook-1")
	require.Equal(t, api.ActionWaiting, snap.PendingAction.State, "a refused comment changes nothing")
	recorded := s.ignoredEvents("review-webhook-1")
	require.Len(t, recorded, 1, "the refusal is recorded in the run itself")
	require.Equal(t, action.StepID, recorded[0].StepID)
	require.Equal(t, "refused by the approval server (GitHub comment): "+reason, recorded[0].Detail, "mallory is named once")
	restarted := s.startApproval()
	require.Equal(t, 1, strings.Count(s.pageOf(restarted, "/runs/review-webhook-1"), reason),
		"a restarted approval server shows the refusal from the run")

	code, answer := s.deliverComment("delivery-2", 502, "bob", "Ship it.\n/agentrun approve "+action.ID)
	require.Equal(t, http.StatusAccepted, code, answer)
	againCode, _ := s.deliverComment("delivery-2", 502, "bob", "Ship it.\n/agentrun approve "+action.ID)
	require.Equal(t, http.StatusAccepted, againCode)

	s.followEvents("review-webhook-1")
	snap, _ = s.snapshot("review-webhook-1")
	require.Equal(t, api.RunCompleted, snap.Run.Status)
	require.Equal(t, "bob", snap.PendingAction.DecidedBy)
	require.Len(t, s.postedReviews(), 1)
}

func (s *stack) inboxHas(actionID string) bool {
	inbox, ok := readSigned[struct{ Approvals []runclient.PendingApproval }](s, "/v1/approvals")
	if !ok {
		return false
	}
	for _, a := range inbox.Approvals {
		if a.ActionID == actionID {
			return true
		}
	}
	return false
}

// ignoredEvents reads the run's signal_ignored events straight from the
// workflow's events query.
func (s *stack) ignoredEvents(runID string) []api.Event {
	s.t.Helper()
	events, err := runclient.New(s.temporal, runclient.Options{}).Events(context.Background(), runID, 0)
	require.NoError(s.t, err)
	var ignored []api.Event
	for _, ev := range events {
		if ev.Type == api.EventSignalIgnored {
			ignored = append(ignored, ev)
		}
	}
	return ignored
}

func (s *stack) page(path string) string {
	s.t.Helper()
	return s.pageOf(s.approval, path)
}

func (s *stack) pageOf(server *httptest.Server, path string) string {
	s.t.Helper()
	req, err := http.NewRequest(http.MethodGet, server.URL+path, nil)
	require.NoError(s.t, err)
	req.Header.Set(identityHeader, "carol") // through the login proxy
	resp, err := http.DefaultClient.Do(req)
	require.NoError(s.t, err)
	defer resp.Body.Close()
	require.Equal(s.t, http.StatusOK, resp.StatusCode)
	body, err := io.ReadAll(resp.Body)
	require.NoError(s.t, err)
	return string(body)
}

// deliverComment sends an issue_comment delivery as GitHub would, signed
// with the webhook secret.
func (s *stack) deliverComment(delivery string, commentID int64, login, body string) (int, map[string]string) {
	s.t.Helper()
	payload, err := json.Marshal(github.IssueCommentEvent{
		Action:  github.String("created"),
		Issue:   &github.Issue{Number: github.Int(1), PullRequestLinks: &github.PullRequestLinks{}},
		Comment: &github.IssueComment{ID: github.Int64(commentID), Body: github.String(body), User: &github.User{Login: github.String(login), Type: github.String("User")}},
		Repo:    &github.Repository{FullName: github.String("acme/widgets")},
	})
	require.NoError(s.t, err)
	req, err := http.NewRequestWithContext(context.Background(), http.MethodPost, s.approval.URL+"/github/webhook", bytes.NewReader(payload))
	require.NoError(s.t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-GitHub-Event", "issue_comment")
	req.Header.Set("X-GitHub-Delivery", delivery)
	req.Header.Set("X-Hub-Signature-256", testkit.GitHubSignature(e2eWebhookSecret, payload))
	return s.send(req)
}
