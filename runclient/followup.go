package runclient

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	workflowpb "go.temporal.io/api/workflow/v1"

	"github.com/agentrun/agentrun/api"
)

// Errors of a follow-up that could not become a run; the new run checks
// everything again on what it loads itself.
var (
	// ErrRunStillOpen: the run to follow up on has not ended.
	ErrRunStillOpen = errors.New("the run is still open: follow up once it has ended")
	// ErrFollowUpRefused: the follow-up breaks api.RefuseFollowUp.
	ErrFollowUpRefused = errors.New("follow-up refused")
)

// FollowUpRequest is a follow-up to start: a new run in the conversation of
// the run Earlier, on its target, by its agent, with Goal as the new message.
type FollowUpRequest struct {
	Earlier   string
	User      string
	Goal      string
	TaskQueue string
	// Key is the caller's request ID: one run per earlier run, user and
	// key. Empty, the goal stands for it, so a repeated identical follow-up
	// finds the run the first started.
	Key      string
	Callback *api.Callback
	// ApprovalTimeout and MaxSteps, when above 0, tune the new run.
	ApprovalTimeout time.Duration
	MaxSteps        int
}

// FollowUpRunID names a follow-up readably (its agent and target, which
// are its earlier run's) and uniquely per earlier run, user and key.
func FollowUpRunID(earlier api.Run, user, key string) string {
	t, _ := api.RunInput{Repo: earlier.Repo, PullNumber: earlier.PullNumber, Target: earlier.Target}.RunTarget()
	return TargetRunID(earlier.Agent, t, fmt.Sprintf("followUp=%s\nuser=%s\nkey=%s", earlier.ID, user, key))
}

// FollowUp starts the follow-up req asks for, or finds the one a repeat of
// it started. It refuses early what the new run would refuse: an earlier run
// still open (ErrRunStillOpen), or a sender who is neither its requester nor
// an approver on a run that names approvers (ErrFollowUpRefused); the run
// asks a writer's permission itself.
func (c *Client) FollowUp(ctx context.Context, req FollowUpRequest) (Started, error) {
	if err := api.CheckGoal(req.Goal); err != nil {
		return Started{}, err
	}
	snap, err := c.Snapshot(ctx, req.Earlier)
	if err != nil {
		return Started{}, err
	}
	in := api.FollowUpInput(snap.Run, req.User, req.Goal)
	in.Callback, in.ApprovalTimeout, in.MaxSteps = req.Callback, req.ApprovalTimeout, req.MaxSteps
	if !snap.Run.Status.IsTerminal() {
		return Started{}, fmt.Errorf("follow up on run %s (%s): %w", req.Earlier, snap.Run.Status, ErrRunStillOpen)
	}
	if why, _ := api.RefuseFollowUp(in, snap.Run); why != "" {
		return Started{}, fmt.Errorf("%w: %s", ErrFollowUpRefused, why)
	}
	key := req.Key
	if key == "" {
		key = "goal=" + req.Goal
	}
	return c.Start(ctx, StartRequest{
		RunID: FollowUpRunID(snap.Run, req.User, key), TaskQueue: req.TaskQueue, Input: in, RequestHash: RequestHash(in),
	})
}

// maxConversationRuns caps how many runs one conversation listing walks.
const maxConversationRuns = 1000

// Conversation lists the runs of a conversation (the ConversationId search
// attribute; the first run's ID), in the order they started. The ID is
// quoted into a visibility query, so one outside [A-Za-z0-9._:-] (at most
// 128) is refused with ErrBadFilter.
func (c *Client) Conversation(ctx context.Context, conversationID string) ([]Listed, error) {
	if !validConversationID(conversationID) {
		return nil, fmt.Errorf("list conversation %.40q: %w", conversationID, ErrBadFilter)
	}
	query := fmt.Sprintf("WorkflowType = %q AND %s = '%s'", api.WorkflowName, api.SearchAttrConversation.GetName(), conversationID)
	var rows []Listed
	err := c.eachPage(ctx, query, listPageSize, func(execs []*workflowpb.WorkflowExecutionInfo) bool {
		rows = append(rows, c.listedOf(execs)...)
		return len(rows) < maxConversationRuns
	})
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(rows, func(a, b Listed) int {
		if c := a.StartedAt.Compare(b.StartedAt); c != 0 {
			return c
		}
		return strings.Compare(a.RunID, b.RunID)
	})
	return rows, nil
}

func validConversationID(id string) bool {
	if id == "" || len(id) > 128 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("._:-", c) >= 0) {
			return false
		}
	}
	return true
}
