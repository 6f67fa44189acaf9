package approvalsrv

import (
	"fmt"

	"github.com/agentrun/agentrun/api"
)

// Batch is the body of POST /v1/runs/{runId}/decision: one decision on
// several waiting actions of the run, each bound by its argsHash.
type Batch struct {
	Decision
	Actions []api.ActionRef `json:"actions"`
}

// parseBatch parses and validates a batch body. Every error it returns is a
// *invalidRequest.
func parseBatch(body []byte) (Batch, error) { return parse[Batch](body) }

// Validate checks a batch from any channel: 2 to api.MaxBatch distinct
// actions, each with its argsHash, so that no action is approved for an
// input its approver did not see.
func (req Batch) Validate() error {
	if err := req.Decision.Validate(); err != nil {
		return err
	}
	if req.ArgsHash != "" {
		return invalidf("argsHash goes with each of actions, not beside them")
	}
	if len(req.Actions) < 2 || len(req.Actions) > api.MaxBatch {
		return invalidf("actions must list 2 to %d actions, not %d", api.MaxBatch, len(req.Actions))
	}
	seen := make(map[string]bool, len(req.Actions))
	for i, ref := range req.Actions {
		if err := checkActionID(ref.ActionID); err != nil {
			return invalidf("actions[%d].actionId: %s", i, err)
		}
		if seen[ref.ActionID] {
			return invalidf("actions names %s twice", ref.ActionID)
		}
		seen[ref.ActionID] = true
		if err := checkArgsHash(fmt.Sprintf("actions[%d].argsHash", i), ref.ArgsHash); err != nil {
			return err
		}
	}
	return nil
}
