package approvalsrv

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/google/go-github/v62/github"

	"github.com/agentrun/agentrun/activities"
)

// handleWebhook serves POST /github/webhook.
func (s *Server) handleWebhook(w http.ResponseWriter, r *http.Request) {
	if !hasMediaType(r, "application/json") && !hasMediaType(r, "application/x-www-form-urlencoded") {
		writeError(w, http.StatusUnsupportedMediaType, "Content-Type must be application/json or application/x-www-form-urlencoded")
		return
	}
	// ValidatePayload falls back to the SHA-1 header; we accept only SHA-256.
	if s.cfg.WebhookSecret != "" && r.Header.Get(github.SHA256SignatureHeader) == "" {
		writeError(w, http.StatusUnauthorized, "missing "+github.SHA256SignatureHeader)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxWebhookBodyBytes)
	payload, err := github.ValidatePayload(r, []byte(s.cfg.WebhookSecret))
	if err != nil {
		if tooLarge := new(http.MaxBytesError); errors.As(err, &tooLarge) {
			writeError(w, http.StatusRequestEntityTooLarge, "the delivery is too large")
			return
		}
		s.logger.Info("webhook delivery refused", "reason", err, "delivery", github.DeliveryID(r))
		writeError(w, http.StatusUnauthorized, "bad webhook signature")
		return
	}
	delivery := github.DeliveryID(r)
	if delivery == "" {
		writeError(w, http.StatusBadRequest, "missing "+github.DeliveryIDHeader)
		return
	}
	eventType := github.WebHookType(r)
	writeOutcome(w, s.deliveries.do(delivery, func() outcome {
		return s.handleDelivery(r.Context(), delivery, eventType, payload)
	}))
}

func (s *Server) handleDelivery(ctx context.Context, delivery, eventType string, payload []byte) outcome {
	if eventType != "issue_comment" {
		return outcome{Code: http.StatusNoContent}
	}
	parsed, err := github.ParseWebHook(eventType, payload)
	if err != nil {
		return refused(http.StatusBadRequest, "malformed issue_comment payload")
	}
	event, ok := parsed.(*github.IssueCommentEvent)
	if !ok || event.GetAction() != "created" {
		return outcome{Code: http.StatusNoContent}
	}
	comment := event.GetComment()
	cmd, err := ParseCommentCommand(comment.GetBody())
	if errors.Is(err, ErrNoCommand) {
		return outcome{Code: http.StatusNoContent}
	}
	logger := s.logger.With("delivery", delivery, "commenter", comment.GetUser().GetLogin(),
		"repo", event.GetRepo().GetFullName(), "issue", event.GetIssue().GetNumber())
	if err != nil {
		logger.Info("comment command refused", "reason", err)
		return refused(http.StatusBadRequest, err.Error())
	}
	in := decisionInput{
		ActionID: cmd.ActionID,
		Channel:  channelWebhook,
		Request: DecisionRequest{
			Decision:  cmd.Decision,
			Approver:  comment.GetUser().GetLogin(),
			Reason:    cmd.Reason,
			RequestID: "github-comment:" + strconv.FormatInt(comment.GetID(), 10),
		},
		openRunPolicy: s.requireWritePermission,
	}
	runID, o := s.locateRun(ctx, in, event.GetRepo().GetFullName(), event.GetIssue().GetNumber())
	if !o.ok() {
		logger.Info("comment command refused", "action", cmd.ActionID, "reason", o.Error)
		return o
	}
	in.RunID = runID
	if isAgentOrBot(comment) {
		return s.refuse(ctx, logger.With("run", runID, "action", cmd.ActionID), in,
			refused(http.StatusForbidden, "a comment by a bot or by the agent itself cannot decide"))
	}
	return s.decide(ctx, in)
}

// isAgentOrBot keeps a comment the agent posted (it carries the operation
// marker) from approving the agent's next action.
func isAgentOrBot(comment *github.IssueComment) bool {
	marker := strings.TrimSuffix(activities.OperationMarker(""), " -->")
	return comment.GetUser().GetType() == "Bot" || strings.Contains(comment.GetBody(), marker)
}

// locateRun finds the open run that owns actionID and checks that the
// command was posted on that run's pull request. Action IDs are unique across
// runs, but a comment knows only its repository and issue number.
func (s *Server) locateRun(ctx context.Context, in decisionInput, repo string, number int) (string, outcome) {
	actionID := in.ActionID
	checked := map[string]bool{}
	for _, sel := range []RunSelection{RunsWaitingForUser, RunsOpen} {
		ids, err := s.runs.ListRunIDs(ctx, sel)
		if err != nil {
			return "", s.temporalFailure(s.logger, err, "listing runs for a comment")
		}
		ids = unchecked(ids, checked)
		for _, found := range s.snapshots(ctx, ids) {
			if found.err != nil || findAction(found.snap, actionID) == nil {
				continue
			}
			run := found.snap.Run
			if !strings.EqualFold(run.Repo, repo) || run.PullNumber != number {
				reason := fmt.Sprintf("the command was posted on %s#%d, not on this run's pull request", repo, number)
				// The commenter's login is authenticated by GitHub's signature and
				// the action is the run's, so the run may hold this refusal.
				s.recordRefusal(ctx, s.logger.With("run", found.runID, "action", actionID), found.runID, Refusal{
					Channel: in.Channel, Who: in.Request.Approver, ActionID: actionID, Reason: reason,
				}, true)
				return "", refused(http.StatusNotFound, fmt.Sprintf("no run of %s#%d has action %s", repo, number, actionID))
			}
			return found.runID, accepted("")
		}
	}
	return "", refused(http.StatusNotFound, fmt.Sprintf("no open run of %s#%d has action %s", repo, number, clip(actionID)))
}

func unchecked(ids []string, checked map[string]bool) []string {
	var out []string
	for _, id := range ids {
		if !checked[id] {
			checked[id] = true
			out = append(out, id)
		}
	}
	return out
}
