package approvalsrv

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/runclient"
)

// Channels a decision arrives through, as shown on the run's page.
const (
	channelAPI     = "signed API"
	channelWebhook = "GitHub comment"
	channelWeb     = "web page"
)

// statusSignalSent is the answer to an accepted decision or resolve.
const statusSignalSent = "signal sent"

// decisionInput is one person's decision on one action, from any channel.
type decisionInput struct {
	RunID    string
	ActionID string
	Request  Decision
	Channel  string
	// openRunPolicy decides who may approve when the run names no approvers;
	// nil lets through anyone the channel has authenticated, for the run to
	// check.
	openRunPolicy openRunPolicy
}

// openRunPolicy decides who may approve a run, as reached, that names no
// approvers: the refusal, or "" for an approver it vouches for.
type openRunPolicy func(ctx context.Context, reach runclient.Reach, approver string) (refusal string, err error)

// writers is the policy of a channel anyone on GitHub can reach (a
// comment, a check run's button): the approver must be able to write to
// the run's repository, as the run itself checks.
func (s *Server) writers(early *permissionLookup) openRunPolicy {
	return func(ctx context.Context, reach runclient.Reach, approver string) (string, error) {
		return s.requireWritePermissionFrom(ctx, reach.Snapshot.Run, approver, "approving", early)
	}
}

// writersWhenRecorded is the page's policy. A live run checks the
// decider's write permission itself, in a step its page shows at once.
// With no worker the decision is recorded unchecked, and a reader's would
// only wait to be refused while it fills the run's cap: so the page then
// asks GitHub, as a comment does.
func (s *Server) writersWhenRecorded(ctx context.Context, reach runclient.Reach, approver string) (string, error) {
	if reach.Live {
		return "", nil
	}
	return s.writers(nil)(ctx, reach, approver)
}

// decideOnce is decide behind the requestId memo: a repeat (same run,
// action, channel, approver and requestId) answers as the first did and
// sends nothing; the same requestId with another decision or reason is 409.
func (s *Server) decideOnce(ctx context.Context, in decisionInput) outcome {
	key := decisionMemoKey(in.RunID, in.ActionID, in.Request, in.Channel)
	return s.answers.Do(key, decisionMemoBody(in.Request), func() outcome { return s.decide(ctx, in) })
}

// decideForm is decideOnce for the run page's form.
func (s *Server) decideForm(ctx context.Context, runID, actionID string, req Decision) outcome {
	return s.decideOnce(ctx, decisionInput{RunID: runID, ActionID: actionID, Request: req, Channel: channelWeb, openRunPolicy: s.writersWhenRecorded})
}

// decideBatchForm is decideBatchOnce for the run page's "approve all" form.
func (s *Server) decideBatchForm(ctx context.Context, runID string, req Batch) outcome {
	return s.decideBatchOnce(ctx, runID, req, channelWeb, s.writersWhenRecorded)
}

// decide checks a decision through the run query (or, with no worker
// answering, against the run's last known state) and, when it can count,
// sends the approval signal. The workflow checks again: the query only spares
// people a signal that would be ignored and tells them why.
func (s *Server) decide(ctx context.Context, in decisionInput) outcome {
	reach, o := s.reachRun(ctx, s.decisionLogger(in), in.RunID, "run query before a decision")
	if !o.OK() {
		return o
	}
	return s.decideOn(ctx, in, reach)
}

func (s *Server) decisionLogger(in decisionInput) *slog.Logger {
	return s.logger.With("run", in.RunID, "action", in.ActionID, "approver", in.Request.Approver,
		"decision", in.Request.Decision, "channel", in.Channel, "requestId", in.Request.RequestID)
}

// decideOn is decide on the run as the caller has just reached it.
func (s *Server) decideOn(ctx context.Context, in decisionInput, reach runclient.Reach) outcome {
	logger := s.decisionLogger(in)
	snap := reach.Snapshot
	action := actionIn(snap, in.ActionID)
	if action == nil && !reach.Live {
		return s.refuse(ctx, logger, in, refused(http.StatusConflict, fmt.Sprintf(
			"action %s is not waiting in the run's last known state (no worker answers for the run)", in.ActionID)))
	}
	if action == nil {
		return s.refuse(ctx, logger, in, refused(http.StatusNotFound, "unknown action for this run"))
	}
	if slices.Contains(action.RequestKeys, api.RequestKey(in.Channel, in.Request.Approver, in.Request.RequestID)) {
		// The workflow already has this request: the first answer was 202.
		return accepted(statusSignalSent)
	}
	approver, vetted, o := s.authorizeApprover(ctx, logger, in, reach, action)
	if o.Code >= 500 {
		return o
	}
	if !o.OK() {
		return s.refuse(ctx, logger, in, o)
	}
	if o := s.checkDecidable(action, in.Request.ArgsHash); !o.OK() {
		return s.refuse(ctx, logger, in, o)
	}
	if len(in.Request.Args) > 0 && !action.Editable {
		return s.refuse(ctx, logger, in, refused(http.StatusConflict, fmt.Sprintf("action %s may not be edited: its agent forbids it, or its arguments are too large", action.ID)))
	}
	return s.sendDecision(ctx, logger, in, reach, vetted, api.ApprovalSignal{
		ActionID:  in.ActionID,
		ArgsHash:  action.ArgsHash,
		Decision:  in.Request.Decision,
		Approver:  approver,
		Reason:    in.Request.Reason,
		RequestID: in.Request.RequestID,
		Channel:   in.Channel,
		Args:      in.Request.Args,
	})
}

// checkDecidable is checkActionOpen, then the input: a decision made on a
// preview whose argsHash is no longer the action's is refused, so that a
// stale page or script cannot approve what its person did not see. An
// empty argsHash is a channel that showed no hash (a GitHub comment); the
// signal then carries the hash the server authorised.
func (s *Server) checkDecidable(action *api.PendingAction, argsHash string) outcome {
	if o := s.checkActionOpen(action); !o.OK() {
		return o
	}
	if argsHash != "" && argsHash != action.ArgsHash {
		return refused(http.StatusConflict, fmt.Sprintf("action %s no longer has the input (argsHash) this decision was made on; read the action again", action.ID))
	}
	return accepted("")
}

// sendDecision sends an authorised decision to the run; vetted says a
// rule of the run accepted its approver here (takeUnchecked).
func (s *Server) sendDecision(ctx context.Context, logger *slog.Logger, in decisionInput, reach runclient.Reach, vetted bool, sig api.ApprovalSignal) outcome {
	if o := s.takeUnchecked(reach, in.RunID, sig.Approver, vetted); !o.OK() {
		logger.Info("decision refused", "code", o.Code, "reason", o.Error)
		return o
	}
	if err := s.runs.Decide(ctx, in.RunID, sig); err != nil {
		if errors.Is(err, errRunNotFound) {
			// Nothing can be recorded in a closed run.
			return s.keepRefusal(ctx, logger, in, refused(http.StatusConflict, "the run has ended"), false)
		}
		return temporalFailure(logger, err, "approval signal")
	}
	logger.Info("approval signal sent", "live", reach.Live)
	return sent(reach)
}

// authorizeApprover returns the approver's name as the channel authenticated
// it, never the list's spelling: the list matched by api.SameLogin, the
// workflow's own rule, so the workflow sees and records who really decided.
// vetted says a rule accepted the approver (the list, or the channel's
// openRunPolicy), not only let them by for the run to check.
func (s *Server) authorizeApprover(ctx context.Context, logger *slog.Logger, in decisionInput, reach runclient.Reach, action *api.PendingAction) (approver string, vetted bool, o outcome) {
	approvers := action.Approvers
	if len(approvers) == 0 {
		approvers = reach.Snapshot.Run.Approvers
	}
	if len(approvers) > 0 {
		if why := api.RefuseApprover(approvers, in.Request.Approver); why != "" {
			return "", false, refused(http.StatusForbidden, why)
		}
		return in.Request.Approver, true, accepted("")
	}
	if in.openRunPolicy == nil {
		return in.Request.Approver, false, accepted("")
	}
	refusal, err := in.openRunPolicy(ctx, reach, in.Request.Approver)
	if err != nil {
		logger.Error("approver check failed", "err", err)
		return "", false, refused(http.StatusBadGateway, "could not check the approver's permission; try again later")
	}
	if refusal != "" {
		return "", false, refused(http.StatusForbidden, refusal)
	}
	return in.Request.Approver, true, accepted("")
}

// checkActionOpen is the run's rule (api.ActionOpen) applied early, with
// the state the action is in, or falls into at its deadline.
func (s *Server) checkActionOpen(action *api.PendingAction) outcome {
	why, due := api.ActionOpen(action, s.now())
	if why == "" {
		return accepted("")
	}
	o := refused(http.StatusConflict, why)
	switch {
	case due:
		o.State = string(api.ActionExpired)
	case action.State == api.ActionApproved || action.State == api.ActionRejected:
		o.State, o.DecidedBy = string(action.State), action.DecidedBy
	case action.State == api.ActionExpired:
		o.State = string(action.State)
	}
	return o
}

// refuse logs a refused decision and keeps it for the run's page. A 403 or
// 409 refuses a decision its channel authenticated, on an action the run
// has, so the refusal is also recorded in the run; any other refusal only in
// this process.
func (s *Server) refuse(ctx context.Context, logger *slog.Logger, in decisionInput, o outcome) outcome {
	inRun := o.Code == http.StatusForbidden || o.Code == http.StatusConflict
	return s.keepRefusal(ctx, logger, in, o, inRun)
}

func (s *Server) keepRefusal(ctx context.Context, logger *slog.Logger, in decisionInput, o outcome, inRun bool) outcome {
	logger.Info("decision refused", "code", o.Code, "reason", o.Error)
	s.refusals.Record(ctx, logger, in.RunID, refusal{
		Channel:  in.Channel,
		Who:      in.Request.Approver,
		ActionID: in.ActionID,
		Reason:   o.Error,
	}, inRun)
	return o
}
