// This file bounds what a run's continue-as-new carries: its
// Checkpoint, with old steps' input and output and old events left behind.

package workflows

import (
	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/redact"
)

// compacted is cp as continue-as-new carries it: finished steps older than
// the newest keepSteps drop their input and output (statuses, keys and IDs
// stay, and an action in doubt keeps its target), and only the newest keepEvents events travel. cp's own steps are
// never changed; a compacted step is a copy.
func compacted(cp api.Checkpoint, keepSteps, keepEvents int) *api.Checkpoint {
	if n := len(cp.Steps); n > keepSteps {
		steps := make([]*api.AgentStep, n)
		for i, st := range cp.Steps {
			if i < n-keepSteps && st.Status.IsTerminal() {
				c := *st
				c.SafeInput, c.SafeOutput = nil, nil
				if api.InDoubt(c) {
					// A follow-up and an approver name what it may have
					// been made on (api.InDoubtOf).
					c.SafeInput = targetOnly(*st)
				}
				st = &c
			}
			steps[i] = st
		}
		cp.Steps = steps
	}
	if n := len(cp.Events); n > keepEvents {
		cp.Events = cp.Events[n-keepEvents:]
	}
	return &cp
}

// targetOnly is st's input reduced to its target, or nil when it names none.
func targetOnly(st api.AgentStep) []byte {
	target := api.StepTarget(st)
	if target == "" {
		return nil
	}
	return redact.JSON(map[string]string{"target": target})
}
