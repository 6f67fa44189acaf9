package runclient

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/agentrun/agentrun/api"
)

// StartRequest is one run to start.
type StartRequest struct {
	// RunID is the workflow ID; RunID(repo, pr, key) derives one from an
	// idempotency key.
	RunID     string
	TaskQueue string
	Input     api.RunInput
	// RequestHash, when set, is RequestHash of the request that asked for
	// the run. Start stores it on the run (memo api.MemoRequestHash) and
	// answers ErrIdempotencyConflict, instead of the run, when the run the ID
	// names holds another. A run that holds none (started before the memo
	// existed) is taken for this request's.
	RequestHash string
}

// Started is what Start did.
type Started struct {
	RunID string `json:"runId"`
	// Agent is the run's agent: the one the request named, or the default.
	Agent string `json:"agent"`
	// ClosedStatus is set when the ID's run had already finished: it was
	// not started again.
	ClosedStatus string `json:"closedStatus,omitempty"`
}

// Start starts the run, or returns the one its ID already names: an open run
// is reused (so a repeated request is harmless), a closed one is reported in
// ClosedStatus and never restarted (so a finished review does not post twice).
func (c *Client) Start(ctx context.Context, req StartRequest) (Started, error) {
	agent := cmp.Or(req.Input.Agent, api.DefaultAgent)
	if !api.ValidAgentName(agent) {
		return Started{}, fmt.Errorf("start run %s with agent %.40q: %w", req.RunID, agent, ErrBadAgent)
	}
	attrs := []temporal.SearchAttributeUpdate{
		// The workflow upserts the status as it goes; setting it at start
		// makes the run visible to a listing by status at once.
		api.SearchAttrStatus.ValueSet(string(api.RunRunning)),
		api.SearchAttrAgent.ValueSet(agent),
	}
	if req.Input.ConversationID != "" {
		attrs = append(attrs, api.SearchAttrConversation.ValueSet(req.Input.ConversationID))
	}
	opts := client.StartWorkflowOptions{
		ID:                       req.RunID,
		TaskQueue:                req.TaskQueue,
		WorkflowIDConflictPolicy: enumspb.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
		WorkflowIDReusePolicy:    enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE,
		// Without it the SDK hides a closed run behind a handle as if it had
		// just started; with it, only the closed case is an error (an open run
		// is reused without one, by the conflict policy).
		WorkflowExecutionErrorWhenAlreadyStarted: true,
		TypedSearchAttributes:                    temporal.NewSearchAttributes(attrs...),
		// What the Temporal UI shows for the run before anyone opens it.
		StaticSummary: api.StaticSummary(req.Input),
	}
	if req.RequestHash != "" {
		opts.Memo = map[string]any{api.MemoRequestHash: req.RequestHash}
	}
	startCtx, cancel := c.bound(ctx)
	_, err := c.temporal.ExecuteWorkflow(startCtx, opts, api.WorkflowName, req.Input)
	cancel()
	var alreadyStarted *serviceerror.WorkflowExecutionAlreadyStarted
	closed := errors.As(err, &alreadyStarted)
	if err != nil && !closed {
		return Started{}, c.classify(ctx, req.RunID, "start run", err)
	}
	started := Started{RunID: req.RunID, Agent: agent}
	if !closed && req.RequestHash == "" {
		return started, nil
	}
	// The conflict policy hands back an open run without saying whether it
	// was this request's: only the run's memo tells.
	desc, err := c.Describe(ctx, req.RunID)
	if err != nil {
		return Started{}, err
	}
	if req.RequestHash != "" && desc.RequestHash != "" && desc.RequestHash != req.RequestHash {
		return Started{}, fmt.Errorf("start run %s: %w", req.RunID, ErrIdempotencyConflict)
	}
	if closed {
		started.ClosedStatus = desc.StatusName()
	}
	return started, nil
}

// IdempotencyKey is the default key of a run: a repeated identical request
// finds the same run. The default agent adds nothing, so that the runs of
// before agents had names keep their keys.
func IdempotencyKey(repo string, pr int, goal, user, agent string) string {
	key := fmt.Sprintf("repo=%s\npr=%d\ngoal=%s\nuser=%s", repo, pr, goal, user)
	if agent != "" && agent != api.DefaultAgent {
		key += "\nagent=" + agent
	}
	return key
}

// RunID names a run readably (whose pull request) and uniquely per key.
func RunID(repo string, pr int, key string) string {
	sum := sha256.Sum256([]byte(key))
	slug := strings.ToLower(strings.ReplaceAll(repo, "/", "-"))
	return fmt.Sprintf("review-%s-%d-%s", slug, pr, hex.EncodeToString(sum[:])[:12])
}
