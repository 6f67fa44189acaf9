package workflows

import (
	"fmt"
	"github.com/agentrun/agentrun/api"
)

// The lifecycle of a run and of its steps. Every status change goes through
// checkRunTransition or checkStepTransition; anything not listed here is a bug.

// runTransitions lists, for each run status, the statuses it may move to.
//
//	running ──► waiting_for_user ──► running
//	   │  └───► reconciling ───────► running
//	   └──► completed | failed | cancelled      (also from the two waits)
var runTransitions = map[api.RunStatus][]api.RunStatus{
	api.RunRunning:        {api.RunWaitingForUser, api.RunReconciling, api.RunCompleted, api.RunFailed, api.RunCancelled},
	api.RunWaitingForUser: {api.RunRunning, api.RunFailed, api.RunCancelled},
	api.RunReconciling:    {api.RunRunning, api.RunFailed, api.RunCancelled},
	api.RunCompleted:      {},
	api.RunFailed:         {},
	api.RunCancelled:      {},
}

// stepTransitions lists, for each step status, the statuses it may move to.
//
//	pending ──► running ──► succeeded | failed
//	   │           └──────► outcome_unknown ──► running (same operationKey, attempt+1)
//	   │                                   └──► succeeded (found) | failed (abandoned)
//	   └──► waiting_for_approval ──► running (approved) | rejected | expired
//	                         └─────► succeeded (a human_approval step that was approved)
//	pending and waiting_for_approval may also end as skipped (the run ended first).
var stepTransitions = map[api.StepStatus][]api.StepStatus{
	api.StepPending:            {api.StepRunning, api.StepWaitingForApproval, api.StepFailed, api.StepSkipped},
	api.StepWaitingForApproval: {api.StepRunning, api.StepSucceeded, api.StepRejected, api.StepExpired, api.StepSkipped},
	api.StepRunning:            {api.StepSucceeded, api.StepFailed, api.StepOutcomeUnknown},
	api.StepOutcomeUnknown:     {api.StepRunning, api.StepSucceeded, api.StepFailed},
	api.StepSucceeded:          {},
	api.StepFailed:             {},
	api.StepRejected:           {},
	api.StepExpired:            {},
	api.StepSkipped:            {},
}

// actionTransitions: a pending action is decided once.
var actionTransitions = map[api.ActionState][]api.ActionState{
	api.ActionWaiting:  {api.ActionApproved, api.ActionRejected, api.ActionExpired},
	api.ActionApproved: {},
	api.ActionRejected: {},
	api.ActionExpired:  {},
}

// IllegalTransitionError reports a status change the lifecycle does not allow.
type IllegalTransitionError struct {
	Kind     string
	From, To string
}

func (e *IllegalTransitionError) Error() string {
	return fmt.Sprintf("illegal %s transition %s -> %s", e.Kind, e.From, e.To)
}

func checkTransition[S ~string](kind string, table map[S][]S, from, to S) error {
	allowed, known := table[from]
	if !known {
		return &IllegalTransitionError{Kind: kind, From: string(from), To: string(to)}
	}
	for _, s := range allowed {
		if s == to {
			return nil
		}
	}
	return &IllegalTransitionError{Kind: kind, From: string(from), To: string(to)}
}

func checkRunTransition(from, to api.RunStatus) error {
	return checkTransition("run", runTransitions, from, to)
}

func checkStepTransition(from, to api.StepStatus) error {
	return checkTransition("step", stepTransitions, from, to)
}

func checkActionTransition(from, to api.ActionState) error {
	return checkTransition("action", actionTransitions, from, to)
}
