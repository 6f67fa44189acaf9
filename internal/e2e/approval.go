package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"testing"
	"time"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/testkit"
)

// Secrets of the approval server under test.
const (
	approvalSecret = "e2e-approval-secret-0123456789abcdef"
	webhookSecret  = "e2e-webhook-secret-0123456789abcdefgh"
)

// ApprovalServer is the approval main running as its own process.
type ApprovalServer struct {
	proc *Process
	base string
	http *http.Client
}

// StartApprovalServer starts the approval server against the stack's
// Temporal and sandbox (for the webhook's permission check) and waits until
// it answers.
func StartApprovalServer(t testing.TB, s *Stack) *ApprovalServer {
	t.Helper()
	return StartApprovalServerWith(t, s, testkit.FreeAddress(t), nil)
}

// StartApprovalServerWith is StartApprovalServer on addr, with more of its
// environment (or other values of it).
func StartApprovalServerWith(t testing.TB, s *Stack, addr string, more map[string]string) *ApprovalServer {
	t.Helper()
	env := map[string]string{
		"APPROVAL_ADDR":         addr,
		"APPROVAL_SECRET":       approvalSecret,
		"GITHUB_WEBHOOK_SECRET": webhookSecret,
		"TEMPORAL_ADDRESS":      s.Server.Address(),
		"GITHUB_API_URL":        s.Sandbox.APIURL(),
		"GITHUB_TOKEN":          "e2e-token",
	}
	maps.Copy(env, more)
	proc := StartProcess(t, ProcessSpec{Name: "approval", Binary: s.Bins.Approval, Env: env})
	a := &ApprovalServer{proc: proc, base: "http://" + addr, http: &http.Client{Timeout: 30 * time.Second}}
	proc.waitAnswering(t, a.http, a.base+"/healthz", "the approval server")
	return a
}

// Answer is the approval server's reply to one request.
type Answer struct {
	Channel string
	Code    int
	Body    string
}

func (a Answer) String() string { return fmt.Sprintf("%s %d %s", a.Channel, a.Code, a.Body) }

// DecideSigned posts an approval through the signed decision API, signed by
// api.SignRequest, the one rule its callers follow.
func (a *ApprovalServer) DecideSigned(ctx context.Context, runID, actionID, approver, requestID string) (Answer, error) {
	body, err := json.Marshal(map[string]string{
		"decision": "approve", "approver": approver, "requestId": requestID,
	})
	if err != nil {
		return Answer{}, fmt.Errorf("encode the decision: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost,
		fmt.Sprintf("%s/v1/runs/%s/actions/%s/decision", a.base, runID, actionID), bytes.NewReader(body))
	if err != nil {
		return Answer{}, fmt.Errorf("build the decision request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	api.SignRequest(req, []byte(approvalSecret), body, time.Now())
	return a.send(req, "signed API")
}

// CommentCommand is an /agentrun command posted as a GitHub comment.
type CommentCommand struct {
	DeliveryID string
	CommentID  int64
	Commenter  string
	Body       string
}

// DeliverComment sends the issue_comment webhook GitHub would send for the
// comment, signed with the webhook secret (X-Hub-Signature-256).
func (a *ApprovalServer) DeliverComment(ctx context.Context, c CommentCommand) (Answer, error) {
	payload, err := json.Marshal(map[string]any{
		"action": "created",
		"issue": map[string]any{
			"number":       PullNum,
			"pull_request": map[string]any{"url": "https://api.github.invalid/repos/" + PullRepo + "/pulls/1"},
		},
		"comment": map[string]any{
			"id":   c.CommentID,
			"body": c.Body,
			"user": map[string]any{"login": c.Commenter, "type": "User"},
		},
		"repository": map[string]any{
			"name": RepoName, "full_name": PullRepo, "owner": map[string]any{"login": RepoOwner},
		},
		"sender": map[string]any{"login": c.Commenter, "type": "User"},
	})
	if err != nil {
		return Answer{}, fmt.Errorf("encode the webhook payload: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, a.base+"/github/webhook", bytes.NewReader(payload))
	if err != nil {
		return Answer{}, fmt.Errorf("build the webhook request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-GitHub-Event", "issue_comment")
	req.Header.Set("X-GitHub-Delivery", c.DeliveryID)
	req.Header.Set("X-Hub-Signature-256", testkit.GitHubSignature(webhookSecret, payload))
	return a.send(req, "webhook")
}

func (a *ApprovalServer) send(req *http.Request, channel string) (Answer, error) {
	resp, err := a.http.Do(req)
	if err != nil {
		return Answer{}, fmt.Errorf("%s %s: %w", req.Method, req.URL.Path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return Answer{}, fmt.Errorf("read the answer to %s: %w", req.URL.Path, err)
	}
	return Answer{Channel: channel, Code: resp.StatusCode, Body: string(bytes.TrimSpace(body))}, nil
}
