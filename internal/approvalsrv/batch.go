package approvalsrv

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/agentrun/agentrun/api"
)

// handleSignedBatch serves POST /v1/runs/{runId}/decision: one decision on
// several waiting actions of a run.
func (s *Server) handleSignedBatch(w http.ResponseWriter, r *http.Request) {
	req, ok := parseSigned(s, w, r, parseBatch)
	if !ok {
		return
	}
	writeOutcome(w, s.decideBatchOnce(r.Context(), r.PathValue("runId"), req, channelAPI, nil))
}

// decideBatchOnce is decideBatch behind the requestId memo, as decideOnce
// is for one action. The key names every action, so a batch and a single
// decision with one requestId are two requests. policy is the channel's
// (decisionInput.openRunPolicy).
func (s *Server) decideBatchOnce(ctx context.Context, runID string, req Batch, channel string, policy openRunPolicy) outcome {
	key := decisionMemoKey(runID, batchMemoID(req.Actions), req.Decision, channel)
	return s.answers.Do(key, decisionMemoBody(req.Decision), func() outcome { return s.decideBatch(ctx, runID, req, channel, policy) })
}

func batchMemoID(refs []api.ActionRef) string {
	parts := make([]string, len(refs))
	for i, ref := range refs {
		parts[i] = ref.ActionID + "=" + ref.ArgsHash
	}
	return "batch:" + strings.Join(parts, ",")
}

// decideBatch checks a batch as decideOn checks one decision, for every
// action it names, and then sends ONE signal: the workflow takes a batch
// whole or not at all, and so does the server, which refuses the batch
// when any action would be refused alone. The run's agent must take
// batches (Run.BatchApproval).
func (s *Server) decideBatch(ctx context.Context, runID string, req Batch, channel string, policy openRunPolicy) outcome {
	in := decisionInput{RunID: runID, ActionID: req.Actions[0].ActionID, Request: req.Decision, Channel: channel, openRunPolicy: policy}
	logger := s.decisionLogger(in).With("batch", len(req.Actions))
	reach, o := s.reachRun(ctx, logger, runID, "run query before a batch decision")
	if !o.OK() {
		return o
	}
	snap := reach.Snapshot
	if !snap.Run.BatchApproval {
		agent := snap.Run.Agent
		if agent == "" {
			agent = api.DefaultAgent
		}
		return s.refuse(ctx, logger, in, refused(http.StatusUnprocessableEntity,
			fmt.Sprintf("agent %s takes one decision per action, not a batch: decide each action on its own", agent)))
	}
	actions := make([]*api.PendingAction, len(req.Actions))
	for i, ref := range req.Actions {
		if actions[i] = actionIn(snap, ref.ActionID); actions[i] == nil {
			in.ActionID = ref.ActionID
			return s.refuse(ctx, logger, in, refused(http.StatusUnprocessableEntity,
				fmt.Sprintf("action %s is not an action of run %s; a batch covers the actions of one run", ref.ActionID, runID)))
		}
	}
	if slices.Contains(actions[0].RequestKeys, api.RequestKey(channel, req.Approver, req.RequestID)) {
		// The workflow already has this request: the first answer was 202.
		return accepted(statusSignalSent)
	}
	approver, vetted := "", true
	for i, action := range actions {
		in.ActionID = action.ID
		who, ok, o := s.authorizeApprover(ctx, logger, in, reach, action)
		vetted = vetted && ok
		if o.Code >= 500 {
			return o
		}
		if o.OK() {
			o = s.checkDecidable(action, req.Actions[i].ArgsHash)
		}
		if !o.OK() {
			return s.refuse(ctx, logger, in, o)
		}
		approver = who
	}
	in.ActionID = req.Actions[0].ActionID
	return s.sendDecision(ctx, logger, in, reach, vetted, api.ApprovalSignal{
		ActionID:  req.Actions[0].ActionID,
		ArgsHash:  req.Actions[0].ArgsHash,
		Batch:     slices.Clone(req.Actions[1:]),
		Decision:  req.Decision.Decision,
		Approver:  approver,
		Reason:    req.Reason,
		RequestID: req.RequestID,
		Channel:   channel,
	})
}
