// This file is what a run shows of its state: the answers of its queries
// (the snapshot, events, step pages, the conversation), its outcome, and the
// details the Temporal UI shows beside it. Everything here reads the
// Checkpoint, the run's state, and runs in the workflow.

package workflows

import (
	"fmt"

	"github.com/agentrun/agentrun/api"
)

// runQuery is one of a run's queries: its name and its handler.
type runQuery struct {
	Name    string
	Handler any
}

// runQueries are the run's queries over cp, which stays the run's state for
// the run's life; historyLength reads the history's length at query time.
func runQueries(cp *api.Checkpoint, historyLength func() int, historyThreshold int) []runQuery {
	return []runQuery{
		{api.QueryRun, func() (api.RunSnapshot, error) { return snapshotOf(cp, historyLength(), historyThreshold), nil }},
		{api.QueryEvents, func(since int64) ([]api.Event, error) { return eventsSince(cp, since), nil }},
		{api.QuerySteps, func(p api.StepPage) (api.StepsPage, error) { return stepsPage(cp, p), nil }},
		// from is a second argument that older callers do not send (it is
		// then 0): a query's missing arguments decode as zero values.
		{api.QueryConversation, func(n, from int) ([]api.Message, error) { return conversationRange(cp, from, n) }},
	}
}

// snapshotOf answers the run query; the history's length and threshold come
// from the workflow.
func snapshotOf(cp *api.Checkpoint, historyLength, historyThreshold int) api.RunSnapshot {
	snap := api.RunSnapshot{
		Run:     cp.Run,
		Actions: make([]api.PendingAction, 0, len(cp.Actions)),
		Label:   cp.Label,
		// The resolve rule (ResolveApplies) reads this, not the label.
		AwaitingResolve: cp.AwaitingResolve,
		Cancel:          cp.Cancel,
		EarlierInDoubt:  cp.EarlierInDoubt,
		Checkpoint: api.CheckpointView{
			Generation:         cp.Run.Generation,
			StepSequence:       cp.StepSequence,
			EventSequence:      cp.EventSequence,
			ConversationLength: len(cp.Conversation),
			HistoryLength:      historyLength,
			HistoryThreshold:   historyThreshold,
		},
	}
	snap.Outcome = outcomeOf(cp)
	newest := stepsPage(cp, api.StepPage{From: len(cp.Steps) - api.SnapshotSteps, Limit: api.SnapshotSteps})
	snap.Steps, snap.StepsFrom, snap.StepCount = newest.Steps, newest.From, newest.StepCount
	for _, pa := range cp.Actions {
		snap.Actions = append(snap.Actions, *pa)
	}
	if n := len(snap.Actions); n > 0 {
		last := snap.Actions[n-1]
		snap.PendingAction = &last
	}
	return snap
}

// eventsSince answers the events query: the events after a sequence number,
// in order.
func eventsSince(cp *api.Checkpoint, since int64) []api.Event {
	out := []api.Event{}
	for _, e := range cp.Events {
		if e.Sequence > since {
			out = append(out, e)
		}
	}
	return out
}

// stepsPage answers QuerySteps: out-of-range pages are empty.
func stepsPage(cp *api.Checkpoint, p api.StepPage) api.StepsPage {
	limit := p.Limit
	if limit <= 0 || limit > api.MaxStepsPage {
		limit = api.MaxStepsPage
	}
	from := min(max(p.From, 0), len(cp.Steps))
	to := min(from+limit, len(cp.Steps))
	page := api.StepsPage{Steps: make([]api.AgentStep, 0, to-from), From: from, StepCount: len(cp.Steps)}
	for _, st := range cp.Steps[from:to] {
		page.Steps = append(page.Steps, *st)
	}
	return page
}

// conversationRange answers QueryConversation: the messages from index from
// up to length (0: up to the end). The conversation only ever grows at its
// end, so a prefix a reference named stays the same for the rest of the run,
// and a worker that holds the first from messages asks only for the rest.
func conversationRange(cp *api.Checkpoint, from, length int) ([]api.Message, error) {
	if length < 0 || length > len(cp.Conversation) {
		return nil, fmt.Errorf("the conversation has %d messages, not %d", len(cp.Conversation), length)
	}
	if length == 0 {
		length = len(cp.Conversation)
	}
	if from < 0 || from > length {
		return nil, fmt.Errorf("messages from %d of %d", from, length)
	}
	return cp.Conversation[from:length], nil
}

// actionIDs are the IDs of every action of the run, in the order they were
// requested: what the AgentRunActionIds search attribute publishes.
func actionIDs(cp *api.Checkpoint) []string {
	ids := make([]string, len(cp.Actions))
	for i, pa := range cp.Actions {
		ids[i] = pa.ID
	}
	return ids
}
