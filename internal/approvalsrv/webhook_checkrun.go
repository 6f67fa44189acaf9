package approvalsrv

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strings"

	"github.com/google/go-github/v62/github"

	"github.com/agentrun/agentrun/api"
)

// channelCheckRun is a decision made with a check run's Approve or Reject
// button (a check_run requested_action delivery).
const channelCheckRun = "GitHub check run"

// maxRunIDLength bounds the external_id a button delivery may name.
const maxRunIDLength = 255

// handleCheckRunDelivery acts on a press of a run's check run button: a
// decision by the delivery's sender, under the same policy and the same
// workflow check as every other channel. The button's identifier binds it
// to one action as it was shown (api.CheckButtonToken of its ID and
// argsHash): a press on a button shown for an earlier action, or for
// arguments edited since, matches nothing and is refused. The check run's
// external_id names the run, and the run must be on the delivery's
// repository. A delivery acts at most once: the memo is keyed by its
// delivery ID, and the run remembers the request too.
func (s *Server) handleCheckRunDelivery(ctx context.Context, delivery string, payload []byte) outcome {
	parsed, err := github.ParseWebHook("check_run", payload)
	if err != nil {
		return refused(http.StatusBadRequest, "malformed check_run payload")
	}
	event, ok := parsed.(*github.CheckRunEvent)
	if !ok || event.GetAction() != "requested_action" {
		return outcome{Code: http.StatusNoContent}
	}
	check := event.GetCheckRun()
	if !strings.HasPrefix(check.GetName(), api.CheckRunPrefix) {
		return outcome{Code: http.StatusNoContent} // another app's check
	}
	var identifier string
	if ra := event.GetRequestedAction(); ra != nil {
		identifier = ra.Identifier
	}
	decision, token, ok := api.ParseCheckButtonID(identifier)
	runID := check.GetExternalID()
	if !ok || runID == "" || len(runID) > maxRunIDLength || hasControl(runID) {
		return refused(http.StatusBadRequest, "the button is not one of agentrun's")
	}
	sender := event.GetSender()
	in := decisionInput{
		RunID:   runID,
		Channel: channelCheckRun,
		Request: Decision{
			Decision:  decision,
			Approver:  sender.GetLogin(),
			RequestID: "github-check-run:" + delivery,
		},
	}
	if decision == api.DecisionReject {
		in.Request.Reason = api.RejectedFromCheckRun
	}
	logger := s.logger.With("delivery", delivery, "sender", sender.GetLogin(), "run", runID,
		"repo", event.GetRepo().GetFullName(), "button", decision)
	key := decisionMemoKey(runID, "button:"+token, in.Request, in.Channel)
	return s.deliveries.Do(key, decisionMemoBody(in.Request), func() outcome {
		return s.buttonDecision(ctx, logger, in, token, event)
	})
}

func (s *Server) buttonDecision(ctx context.Context, logger *slog.Logger, in decisionInput, token string, event *github.CheckRunEvent) outcome {
	// The run must be on the delivery's repository, so the permission the
	// open-run policy needs is the sender's there: asked while the run is
	// reached, not after.
	var early *permissionLookup
	if event.GetSender().GetType() != "Bot" {
		early = s.lookUpPermission(ctx, event.GetRepo().GetFullName(), in.Request.Approver)
	}
	in.openRunPolicy = s.writers(early)
	reach, o := s.reachRun(ctx, logger, in.RunID, "run query for a check run button")
	if !o.OK() {
		logger.Info("check run button refused", "code", o.Code, "reason", o.Error)
		return o
	}
	run := reach.Snapshot.Run
	if !strings.EqualFold(run.Repo, event.GetRepo().GetFullName()) {
		o := refused(http.StatusNotFound, fmt.Sprintf("no run of %s owns this check run", event.GetRepo().GetFullName()))
		logger.Info("check run button refused", "reason", o.Error)
		return o
	}
	var action *api.PendingAction
	for i := range reach.Snapshot.Actions {
		if pa := &reach.Snapshot.Actions[i]; api.CheckButtonToken(pa.ID, pa.ArgsHash) == token {
			action = pa
			break
		}
	}
	if action == nil {
		o := refused(http.StatusConflict, "the button was shown for an action that no longer waits as it was (decided, edited or replaced); reload the pull request")
		logger.Info("check run button refused", "reason", o.Error)
		return o
	}
	in.ActionID = action.ID
	in.Request.ArgsHash = action.ArgsHash
	if sender := event.GetSender(); sender.GetType() == "Bot" {
		return s.refuse(ctx, logger, in, refused(http.StatusForbidden, "a bot cannot decide"))
	}
	return s.decideOn(ctx, in, reach)
}
