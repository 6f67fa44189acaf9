package api

import "fmt"

// The lifecycle of a run, its steps and its actions: the workflow makes every
// status change through CheckRunTransition, CheckStepTransition or
// CheckActionTransition, and anything not listed here is a bug.

// runTransitions lists, for each run status, the statuses it may move to.
//
//	running ──► waiting_for_user ──► running
//	   │  └───► reconciling ───────► running
//	   └──► completed | failed | cancelled      (also from the two waits)
var runTransitions = map[RunStatus][]RunStatus{
	RunRunning:        {RunWaitingForUser, RunReconciling, RunCompleted, RunFailed, RunCancelled},
	RunWaitingForUser: {RunRunning, RunFailed, RunCancelled},
	RunReconciling:    {RunRunning, RunFailed, RunCancelled},
	RunCompleted:      {},
	RunFailed:         {},
	RunCancelled:      {},
}

// stepTransitions lists, for each step status, the statuses it may move to.
//
//	pending ──► running ──► succeeded | failed
//	   │           └──────► outcome_unknown ──► running (same operationKey, attempt+1)
//	   │                                   └──► succeeded (found) | failed (abandoned)
//	   └──► waiting_for_approval ──► running (approved) | rejected | expired
//	                         └─────► succeeded (a human_approval step that was approved)
//	pending and waiting_for_approval may also end as skipped (the run ended first).
var stepTransitions = map[StepStatus][]StepStatus{
	StepPending:            {StepRunning, StepWaitingForApproval, StepFailed, StepSkipped},
	StepWaitingForApproval: {StepRunning, StepSucceeded, StepRejected, StepExpired, StepSkipped},
	StepRunning:            {StepSucceeded, StepFailed, StepOutcomeUnknown},
	StepOutcomeUnknown:     {StepRunning, StepSucceeded, StepFailed},
	StepSucceeded:          {},
	StepFailed:             {},
	StepRejected:           {},
	StepExpired:            {},
	StepSkipped:            {},
}

// actionTransitions: a pending action is decided once.
var actionTransitions = map[ActionState][]ActionState{
	ActionWaiting:  {ActionApproved, ActionRejected, ActionExpired},
	ActionApproved: {},
	ActionRejected: {},
	ActionExpired:  {},
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

// terminal reports whether table names s and lets it move nowhere.
func terminal[S ~string](table map[S][]S, s S) bool {
	next, known := table[s]
	return known && len(next) == 0
}

// CheckRunTransition says whether a run may move from one status to another.
func CheckRunTransition(from, to RunStatus) error {
	return checkTransition("run", runTransitions, from, to)
}

// CheckStepTransition says whether a step may move from one status to another.
//
// A nil error means yes; otherwise it is an *IllegalTransitionError.
func CheckStepTransition(from, to StepStatus) error {
	return checkTransition("step", stepTransitions, from, to)
}

// CheckActionTransition says whether an action may move from one state to another.
func CheckActionTransition(from, to ActionState) error {
	return checkTransition("action", actionTransitions, from, to)
}
