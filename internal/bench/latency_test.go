package bench

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
)

// signalToActivity reads a closed run's history: the time from its first
// signal to the start of the first activity named activity (any activity
// when empty) scheduled after it. Both times are the server's own event
// times, so the driver's polling does not enter the figure.
func signalToActivity(ctx context.Context, c client.Client, id, activity string) (time.Duration, error) {
	iter := c.GetWorkflowHistory(ctx, id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	var signaled time.Time
	names := map[int64]string{} // scheduled event ID -> activity type
	for iter.HasNext() {
		ev, err := iter.Next()
		if err != nil {
			return 0, fmt.Errorf("history of %s: %w", id, err)
		}
		switch ev.GetEventType() {
		case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED:
			if signaled.IsZero() {
				signaled = ev.GetEventTime().AsTime()
			}
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
			names[ev.GetEventId()] = ev.GetActivityTaskScheduledEventAttributes().GetActivityType().GetName()
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_STARTED:
			name := names[ev.GetActivityTaskStartedEventAttributes().GetScheduledEventId()]
			if !signaled.IsZero() && (activity == "" || name == activity) {
				return ev.GetEventTime().AsTime().Sub(signaled), nil
			}
		}
	}
	return 0, fmt.Errorf("run %s: no %q activity started after a signal", id, activity)
}

// signalLatencies is signalToActivity over many runs.
func signalLatencies(ctx context.Context, c client.Client, ids []string, activity string) ([]time.Duration, error) {
	out := make([]time.Duration, 0, len(ids))
	for _, id := range ids {
		d, err := signalToActivity(ctx, c, id, activity)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}

// percentileMs is the nearest-rank percentile p (0..100) of ds, in ms.
func percentileMs(ds []time.Duration, p float64) float64 {
	if len(ds) == 0 {
		return math.NaN()
	}
	sorted := slices.Sorted(slices.Values(ds))
	rank := int(math.Ceil(p/100*float64(len(sorted)))) - 1
	return msPer(sorted[max(rank, 0)], 1)
}
