package approvalsrv

import (
	"context"

	"github.com/agentrun/agentrun/api"
)

// modelWriter reads what a run's model is writing right now
// (runclient.ModelWriting). It is optional: a Runs without it shows nothing.
type modelWriter interface {
	ModelWriting(ctx context.Context, runID string) (string, error)
}

// modelWriting is the text the run page shows as "Writing: …", read from
// the pending model call through Describe, never from the run's history.
// A failure only hides it: the page is worth showing without it.
func (s *pages) modelWriting(ctx context.Context, runID string, snap api.RunSnapshot) string {
	reader, ok := s.runs.(modelWriter)
	if !ok || snap.Run.Status.IsTerminal() {
		return ""
	}
	text, err := reader.ModelWriting(ctx, runID)
	if err != nil {
		s.logger.Warn("run page without what the model is writing", "run", runID, "err", err)
		return ""
	}
	return text
}
