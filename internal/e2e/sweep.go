package e2e

import (
	"context"
	"fmt"
	"time"

	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"

	"github.com/agentrun/agentrun/api"
)

// CrashPoint is where one kill of a crash-point sweep landed in its run's
// history. The server writes a history in batches (a workflow task's
// completion and the commands it carries are one write), so a kill waiting
// for event Target lands at the end of the batch that holds it: At is what
// the history held when the worker died.
type CrashPoint struct {
	// Target is the history length the kill waited for; 0 is a run never killed.
	Target int
	Mode   KillMode
	// Killed is false when the run closed before its history reached Target.
	Killed bool
	// At is the history's length when the worker was killed, and Event the
	// type of its last event then.
	At    int
	Event string
	// Final is the history's length once the run closed.
	Final int
	// Took is the run's time from its start to its checks' end.
	Took time.Duration
}

func (p CrashPoint) String() string {
	if !p.Killed {
		return fmt.Sprintf("event %d, %s: not killed (the run closed at %d events, %s)", p.Target, p.Mode, p.Final, p.Took.Round(100*time.Millisecond))
	}
	return fmt.Sprintf("event %d, %s: killed at %d (%s), closed at %d, %s", p.Target, p.Mode, p.At, p.Event, p.Final, p.Took.Round(100*time.Millisecond))
}

// RunHooks is what FollowRun does at the moments it watches for.
type RunHooks struct {
	// Killed delivers the history length at each kill of the run's worker
	// (KillGate.Kills), and Restart starts a worker in the killed one's place.
	Killed  <-chan int
	Restart func()
	// Waiting is called each time the run's status becomes waiting_for_user,
	// with the IDs of the run's actions the run publishes with it: the run
	// asks a person, and the test answers. It needs no worker to learn them.
	Waiting func(actionIDs []string) error
}

// RunTrace is what FollowRun saw of a run: the type of each event of its
// history, and the history's length at each kill it was told of.
type RunTrace struct {
	Events []string
	Kills  []int
}

// FollowRun long-polls runID's history, event by event, until the run
// closes: each time an event makes the run's status waiting_for_user it
// calls hooks.Waiting, and each time its worker is killed, hooks.Restart.
func FollowRun(ctx context.Context, c client.Client, runID string, hooks RunHooks) (RunTrace, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type next struct {
		ev  *historypb.HistoryEvent
		err error
	}
	stream := make(chan next)
	go func() {
		defer close(stream)
		events := c.GetWorkflowHistory(ctx, runID, "", true, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
		for events.HasNext() {
			ev, err := events.Next()
			select {
			case stream <- next{ev, err}:
			case <-ctx.Done():
				return
			}
			if err != nil {
				return
			}
		}
	}()
	var trace RunTrace
	for {
		select {
		case at := <-hooks.Killed:
			trace.Kills = append(trace.Kills, at)
			hooks.Restart()
		case nx, open := <-stream:
			switch {
			case !open && ctx.Err() != nil:
				return trace, fmt.Errorf("follow the history of run %s after %d events: %w", runID, len(trace.Events), ctx.Err())
			case !open:
				return trace, nil
			case nx.err != nil:
				return trace, fmt.Errorf("follow the history of run %s after %d events: %w", runID, len(trace.Events), nx.err)
			}
			trace.Events = append(trace.Events, nx.ev.GetEventType().String())
			if ids, waiting := becomesWaiting(nx.ev); waiting {
				if err := hooks.Waiting(ids); err != nil {
					return trace, fmt.Errorf("run %s waits for a person at event %d: %w", runID, len(trace.Events), err)
				}
			}
		}
	}
}

// historyLength is how many events the run's history holds now.
func historyLength(ctx context.Context, c client.Client, runID string) (int, error) {
	desc, err := c.DescribeWorkflowExecution(ctx, runID, "")
	if err != nil {
		return 0, fmt.Errorf("describe run %s: %w", runID, err)
	}
	return int(desc.GetWorkflowExecutionInfo().GetHistoryLength()), nil
}

// becomesWaiting reports whether ev sets the run's status search attribute
// to waiting_for_user, and the action IDs it publishes with it: the
// workflow writes its status with every change, and its actions with a wait.
func becomesWaiting(ev *historypb.HistoryEvent) ([]string, bool) {
	fields := ev.GetUpsertWorkflowSearchAttributesEventAttributes().GetSearchAttributes().GetIndexedFields()
	var status string
	if p, ok := fields[api.SearchAttrStatus.GetName()]; !ok || decode(p, &status) != nil || status != string(api.RunWaitingForUser) {
		return nil, false
	}
	var ids []string
	if p, ok := fields[api.SearchAttrActionIDs.GetName()]; ok && decode(p, &ids) != nil {
		ids = nil
	}
	return ids, true
}

func decode(p *commonpb.Payload, into any) error {
	return converter.GetDefaultDataConverter().FromPayload(p, into)
}

// SweepPoints are the kill points of a sweep over a run of events events:
// every one from 1 to events, or with sample > 0 that many spread evenly,
// always the first and the last.
func SweepPoints(events, sample int) []int {
	if sample <= 0 || sample >= events {
		points := make([]int, events)
		for i := range points {
			points[i] = i + 1
		}
		return points
	}
	if sample == 1 {
		return []int{events}
	}
	var points []int
	for k := range sample {
		p := 1 + (events-1)*k/(sample-1)
		if len(points) == 0 || points[len(points)-1] != p {
			points = append(points, p)
		}
	}
	return points
}
