// This file bounds what a run's continue-as-new carries: its
// Checkpoint, with old steps' input and output and old events left behind.

package workflows

import "github.com/agentrun/agentrun/api"

// compacted is cp as continue-as-new carries it: finished steps older than
// the newest keepSteps drop their input and output (statuses, keys and IDs
// stay), and only the newest keepEvents events travel. cp's own steps are
// never changed; a compacted step is a copy.
func compacted(cp api.Checkpoint, keepSteps, keepEvents int) *api.Checkpoint {
	if n := len(cp.Steps); n > keepSteps {
		steps := make([]*api.AgentStep, n)
		for i, st := range cp.Steps {
			if i < n-keepSteps && st.Status.IsTerminal() {
				c := *st
				c.SafeInput, c.SafeOutput = nil, nil
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
