package runclient

import (
	"context"
	"fmt"
	"strings"

	"github.com/agentrun/agentrun/api"
)

// ModelWriting is the text the run's model is writing right now, read from
// the heartbeat details of its pending ModelNext activity; "" when no model
// call is in flight or its model does not stream. The text is never in the
// run's history, only on the pending activity, so a reader sees it while
// it is written and never after.
func (c *Client) ModelWriting(ctx context.Context, runID string) (string, error) {
	d, err := c.Describe(ctx, runID)
	if err != nil {
		return "", err
	}
	for _, pending := range d.PendingActivities {
		if pending.GetActivityType().GetName() != api.ActivityModelNext || len(pending.GetHeartbeatDetails().GetPayloads()) == 0 {
			continue
		}
		var progress api.ModelProgress
		// Through the client's converter: with AGENTRUN_PAYLOAD_KEYS the
		// details are encrypted like every payload.
		if err := c.converter().FromPayloads(pending.GetHeartbeatDetails(), &progress); err != nil {
			return "", fmt.Errorf("decode what the model of run %s is writing: %w", runID, err)
		}
		// A worker of another build may send more, or bytes that are not text.
		return strings.ToValidUTF8(api.TailUTF8(progress.Writing, api.MaxWritingBytes), "\uFFFD"), nil
	}
	return "", nil
}
