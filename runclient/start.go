package runclient

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
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
	// FormerRunID, when set, is the ID an earlier build gave this request's
	// key (FormerKeyedRunID). Start answers with that run when it exists, as
	// it would with RunID's, so that a key used before an upgrade keeps its
	// run.
	FormerRunID string
	// AfterClosed starts a new run under RunID even when a run under it has
	// closed (a pull request reopened at the head whose review its close
	// ended): signals and queries by the ID then reach the new one. An open
	// run under the ID is still reused.
	AfterClosed bool
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
	if err := CheckStart(req.Input); err != nil {
		return Started{}, fmt.Errorf("start run %s: %w", req.RunID, err)
	}
	attrs := []temporal.SearchAttributeUpdate{
		// The workflow upserts the status as it goes; setting it at start
		// makes the run visible to a listing by status at once.
		api.SearchAttrStatus.ValueSet(string(api.RunRunning)),
		api.SearchAttrAgent.ValueSet(agent),
	}
	// A run without one is its own conversation (api.RunInput.NewRun); set
	// here, the run need not upsert it.
	attrs = append(attrs, api.SearchAttrConversation.ValueSet(cmp.Or(req.Input.ConversationID, req.RunID)))
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
	if req.AfterClosed {
		opts.WorkflowIDReusePolicy = enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE
	}
	if req.RequestHash != "" {
		opts.Memo = map[string]any{api.MemoRequestHash: req.RequestHash}
	}
	if req.FormerRunID != "" && req.FormerRunID != req.RunID {
		desc, err := c.Describe(ctx, req.FormerRunID)
		var notFound *NotFoundError
		switch {
		case err == nil:
			former := req
			former.RunID = req.FormerRunID
			return former.answer(agent, desc, desc.Status != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING)
		case !errors.As(err, &notFound):
			return Started{}, err
		}
	}
	startCtx, cancel := c.bound(ctx)
	_, err := c.temporal.ExecuteWorkflow(startCtx, opts, api.WorkflowName, req.Input)
	cancel()
	var alreadyStarted *serviceerror.WorkflowExecutionAlreadyStarted
	closed := errors.As(err, &alreadyStarted)
	if err != nil && !closed {
		return Started{}, c.classify(ctx, req.RunID, "start run", err)
	}
	if !closed && req.RequestHash == "" {
		return Started{RunID: req.RunID, Agent: agent}, nil
	}
	// The conflict policy hands back an open run without saying whether it
	// was this request's: only the run's memo tells.
	desc, err := c.Describe(ctx, req.RunID)
	if err != nil {
		return Started{}, err
	}
	return req.answer(agent, desc, closed)
}

// answer is the run the request's ID already names: this request's, or
// ErrIdempotencyConflict when the run holds another's hash.
func (req StartRequest) answer(agent string, desc Description, closed bool) (Started, error) {
	if req.RequestHash != "" && desc.RequestHash != "" && desc.RequestHash != req.RequestHash {
		return Started{}, fmt.Errorf("start run %s: %w", req.RunID, ErrIdempotencyConflict)
	}
	started := Started{RunID: req.RunID, Agent: agent}
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

// RunID names a pull request review readably (whose pull request) and
// uniquely per key: TargetRunID of the default agent.
func RunID(repo string, pr int, key string) string {
	sum := sha256.Sum256([]byte(key))
	slug := strings.ToLower(strings.ReplaceAll(repo, "/", "-"))
	return fmt.Sprintf("review-%s-%d-%s", slug, pr, hex.EncodeToString(sum[:])[:12])
}

// KeyedTargetRunID names the run of a key its caller chose, after its
// agent and target like every run ID: one run per agent, target and key,
// so that the same key with another goal, approvers or callback meets the
// first run and is refused as ErrIdempotencyConflict instead of starting a
// second. Its hash is the key's alone, as FormerKeyedRunID's is.
func KeyedTargetRunID(agent string, t api.Target, key string) string {
	return TargetRunID(agent, t, key)
}

// FormerKeyedRunID is the ID builds before KeyedTargetRunID named the agent
// gave a key, whatever the agent ("pr-review-…" for a recommendation, the
// "review-…" of a pull request). A keyed start asks for that run first
// (StartRequest.FormerRunID): a key used before the upgrade keeps its run,
// and one used there by another agent or request is still refused.
func FormerKeyedRunID(t api.Target, key string) string {
	return TargetRunID(api.DefaultAgent, t, key)
}

// maxTargetSlug bounds the readable part a target gives a run ID.
const maxTargetSlug = 40

// TargetRunID names a run readably (its agent and target) and uniquely per
// key: "<agent>-<target>-<12 hex>", in lower case letters, digits and '-'.
// The default agent on a pull request keeps RunID's "review-" IDs, so that
// a repeated start after an upgrade finds the run it started before.
func TargetRunID(agent string, t api.Target, key string) string {
	agent = cmp.Or(agent, api.DefaultAgent)
	if t.IsPullRequest() && agent == api.DefaultAgent {
		return RunID(t.Owner+"/"+t.Repo, t.PullNumber, key)
	}
	sum := sha256.Sum256([]byte(key))
	return agent + "-" + targetSlug(t) + "-" + hex.EncodeToString(sum[:])[:12]
}

// targetSlug is the target's values (a pull request's owner, name and
// number; another kind's fields in name order), each character outside
// [a-z0-9] a '-': the ID must stay inside a visibility query's quotes.
func targetSlug(t api.Target) string {
	parts := []string{t.Owner, t.Repo, strconv.Itoa(t.PullNumber)}
	if !t.IsPullRequest() {
		parts = parts[:0]
		for _, k := range t.FieldNames() {
			parts = append(parts, t.Fields[k])
		}
	}
	var b strings.Builder
	for _, r := range strings.ToLower(strings.Join(parts, "-")) {
		if b.Len() >= maxTargetSlug {
			break
		}
		ok := 'a' <= r && r <= 'z' || '0' <= r && r <= '9'
		switch {
		case ok:
			b.WriteRune(r)
		case b.Len() > 0 && !strings.HasSuffix(b.String(), "-"):
			b.WriteByte('-')
		}
	}
	return cmp.Or(strings.TrimSuffix(b.String(), "-"), t.KindName())
}

// TargetIdempotencyKey is IdempotencyKey for a target of any kind; a pull
// request's is IdempotencyKey's, so that its runs keep their keys. Field
// values hold no control characters (api.NewTarget), so no value can
// forge another line.
func TargetIdempotencyKey(t api.Target, goal, user, agent string) string {
	if t.IsPullRequest() {
		return IdempotencyKey(t.Owner+"/"+t.Repo, t.PullNumber, goal, user, agent)
	}
	key := "target=" + t.Kind
	for _, k := range t.FieldNames() {
		key += "\n" + k + "=" + t.Fields[k]
	}
	return fmt.Sprintf("%s\ngoal=%s\nuser=%s\nagent=%s", key, goal, user, cmp.Or(agent, api.DefaultAgent))
}

// CheckStart is the rule every channel applies to a start before the run
// exists (the run applies it again, as the final word): a target it can
// read, of the kind a built-in agent takes, and named approvers on a kind
// without a source of who may approve.
func CheckStart(in api.RunInput) error {
	if err := api.CheckGoal(in.Goal); err != nil {
		return err
	}
	target, err := in.RunTarget()
	if err != nil {
		return err
	}
	if err := api.CheckAgentKind(cmp.Or(in.Agent, api.DefaultAgent), target); err != nil {
		return err
	}
	if err := api.CheckCheckRun(in.CheckRun, target); err != nil {
		return err
	}
	return api.CheckApprovers(target, in.Approvers)
}
