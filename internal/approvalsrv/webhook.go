package approvalsrv

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"

	"github.com/google/go-github/v62/github"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/runclient"
)

// handleWebhook serves POST /github/webhook; gitHubSigned (routes.go) has
// checked the delivery's signature and left its JSON payload in the body.
func (s *Server) handleWebhook(w http.ResponseWriter, r *http.Request) {
	payload, err := io.ReadAll(r.Body)
	if err != nil {
		writeError(w, http.StatusBadRequest, "could not read the delivery")
		return
	}
	delivery := github.DeliveryID(r)
	if delivery == "" {
		writeError(w, http.StatusBadRequest, "missing "+github.DeliveryIDHeader)
		return
	}
	writeOutcome(w, s.handleDelivery(r.Context(), delivery, github.WebHookType(r), payload))
}

// handleDelivery acts on a comment command at most once per comment: the
// memo is keyed by the comment (through its requestId), not by the delivery,
// so that a redelivery, with its old or a fresh delivery ID, answers as the
// first did and does no new work. Deliveries without a command do no work
// and need no memo.
func (s *Server) handleDelivery(ctx context.Context, delivery, eventType string, payload []byte) outcome {
	if eventType == "check_run" {
		return s.handleCheckRunDelivery(ctx, delivery, payload)
	}
	if eventType == "pull_request" {
		return s.pullRequestDelivery(ctx, delivery, payload)
	}
	if eventType != "issue_comment" {
		return outcome{Code: http.StatusNoContent}
	}
	parsed, err := github.ParseWebHook(eventType, payload)
	if err != nil {
		return refused(http.StatusBadRequest, "malformed issue_comment payload")
	}
	event, ok := parsed.(*github.IssueCommentEvent)
	// An edit is not a new decision: the command acted (or was refused) when
	// the comment was created.
	if !ok || event.GetAction() != "created" {
		return outcome{Code: http.StatusNoContent}
	}
	comment := event.GetComment()
	cmd, err := parseCommentCommand(comment.GetBody())
	if errors.Is(err, errNoCommand) {
		return outcome{Code: http.StatusNoContent}
	}
	logger := s.logger.With("delivery", delivery, "commenter", comment.GetUser().GetLogin(),
		"repo", event.GetRepo().GetFullName(), "issue", event.GetIssue().GetNumber())
	if err != nil {
		logger.Info("comment command refused", "reason", err)
		return refused(http.StatusBadRequest, err.Error())
	}
	if cmd.Decision == verbReview {
		key := "github-comment-review:" + strconv.FormatInt(comment.GetID(), 10)
		return s.deliveries.Do(key, verbReview, func() outcome { return s.reviewCommand(ctx, logger, event) })
	}
	in := decisionInput{
		ActionID: cmd.ActionID,
		Channel:  channelWebhook,
		Request: Decision{
			Decision:  cmd.Decision,
			Approver:  comment.GetUser().GetLogin(),
			Reason:    cmd.Reason,
			RequestID: "github-comment:" + strconv.FormatInt(comment.GetID(), 10),
		},
		openRunPolicy: s.writers(nil),
	}
	// Anyone can comment on a public pull request, so comments have a memo of
	// their own: a flood of them cannot push signed API answers out.
	key := decisionMemoKey("", in.ActionID, in.Request, in.Channel)
	return s.deliveries.Do(key, decisionMemoBody(in.Request), func() outcome {
		return s.commentDecision(ctx, logger.With("action", cmd.ActionID), in, event)
	})
}

func (s *Server) commentDecision(ctx context.Context, logger *slog.Logger, in decisionInput, event *github.IssueCommentEvent) outcome {
	repo, number := event.GetRepo().GetFullName(), event.GetIssue().GetNumber()
	runID, reach, o := s.locateRun(ctx, logger, in, repo, number)
	if !o.OK() {
		logger.Info("comment command refused", "reason", o.Error)
		return o
	}
	in.RunID = runID
	if isAgentOrBot(event.GetComment()) {
		return s.refuse(ctx, logger.With("run", runID), in,
			refused(http.StatusForbidden, "a comment by a bot or by the agent itself cannot decide"))
	}
	return s.decideOn(ctx, in, reach)
}

// isAgentOrBot keeps a comment the agent posted (it carries the operation
// marker) from approving the agent's next action.
func isAgentOrBot(comment *github.IssueComment) bool {
	marker := strings.TrimSuffix(api.OperationMarker(""), " -->")
	return comment.GetUser().GetType() == "Bot" || strings.Contains(comment.GetBody(), marker)
}

// locateRun finds the run that owns the action through its AgentRunActionIds
// search attribute, in one visibility query, and checks that the command was
// posted on that run's pull request: a comment knows only its repository and
// issue number.
func (s *Server) locateRun(ctx context.Context, logger *slog.Logger, in decisionInput, repo string, number int) (string, runclient.Reach, outcome) {
	notFound := refused(http.StatusNotFound, fmt.Sprintf("no run of %s#%d has action %s", repo, number, in.ActionID))
	runID, err := s.runs.RunByActionID(ctx, in.ActionID)
	if errors.Is(err, errRunNotFound) {
		return "", runclient.Reach{}, notFound
	}
	if err != nil {
		return "", runclient.Reach{}, temporalFailure(logger, err, "finding the run of a comment's action")
	}
	reach, o := s.reachRun(ctx, logger.With("run", runID), runID, "run query for a comment")
	if o.Code == http.StatusNotFound {
		// Visibility lags: the run was deleted since it was indexed.
		return "", runclient.Reach{}, notFound
	}
	if !o.OK() {
		return "", runclient.Reach{}, o
	}
	run := reach.Snapshot.Run
	if !reach.Live && run.Repo == "" {
		// No memo to read (or one this process cannot decrypt): the
		// command's pull request cannot be matched to the run's.
		return "", runclient.Reach{}, refused(http.StatusServiceUnavailable, "no worker answers for this run and its last known state does not name its pull request; try again later")
	}
	if !strings.EqualFold(run.Repo, repo) || run.PullNumber != number {
		reason := fmt.Sprintf("the command was posted on %s#%d, not on this run's pull request", repo, number)
		// The commenter's login is authenticated by GitHub's signature and
		// the action is the run's, so the run may hold this refusal.
		s.refusals.Record(ctx, logger.With("run", runID), runID, refusal{
			Channel: in.Channel, Who: in.Request.Approver, ActionID: in.ActionID, Reason: reason,
		}, true)
		return "", runclient.Reach{}, notFound
	}
	return runID, reach, accepted("")
}
