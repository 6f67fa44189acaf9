package api

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// The stop switch. An operator holds an agent, a target or a tool; every
// run it matches stops before its next side effect and goes on when the
// hold is released. The holds live in one long-lived workflow per
// task queue (HoldsWorkflowID), so they survive restarts of the workers and
// of the server, and its query is their audit (who, when, why).

const (
	// HoldsWorkflowName is the registered name of the holds workflow.
	HoldsWorkflowName = "AgentRunHolds"
	// SignalHold carries a HoldSignal: place a hold.
	SignalHold = "hold"
	// SignalRelease carries a HoldSignal: release the hold on its selector.
	SignalRelease = "release"
	// SignalHoldWaiter carries a HoldWaiter: a held run asks to be told
	// when nothing holds it any more.
	SignalHoldWaiter = "hold-waiter"
	// SignalHoldsReleased is sent to a run that waits on a hold once no
	// hold matches it; it carries nothing, and the run looks again.
	SignalHoldsReleased = "holds-released"
	// QueryHolds returns the HoldsView.
	QueryHolds = "holds"
	// ActivityCheckHolds takes a HoldCheck and returns a HoldMatch.
	ActivityCheckHolds = "CheckHolds"
)

// HoldsWorkflowID is the well-known ID of the holds workflow of the workers
// that poll taskQueue: a hold or release starts it there with
// signal-with-start, and those workers' runs ask it. One per task queue,
// not per namespace: a namespace may serve several deployments (and
// tests) on their own queues, and a hold stops the runs of one.
func HoldsWorkflowID(taskQueue string) string { return "agentrun-holds:" + taskQueue }

// Bounds of a hold's words; they reach every matching run's page.
const (
	MaxHoldReasonBytes   = 500
	MaxHoldSelectorBytes = 200
	// MaxHoldLog bounds the audit log the holds workflow keeps and carries
	// across its continue-as-new: the newest changes.
	MaxHoldLog = 200
	// MaxHolds bounds the active holds.
	MaxHolds = 100
)

// HoldSelector names what a hold stops: exactly one of an agent (by name),
// a target (a run's target, "acme/widgets#12", or a whole repository,
// "acme/widgets") and a tool (by name).
type HoldSelector struct {
	Agent  string `json:"agent,omitempty"`
	Target string `json:"target,omitempty"`
	Tool   string `json:"tool,omitempty"`
}

// Validate refuses a selector that names not exactly one thing.
func (s HoldSelector) Validate() error {
	set := 0
	for _, v := range []string{s.Agent, s.Target, s.Tool} {
		if strings.TrimSpace(v) != "" {
			set++
		}
		if len(v) > MaxHoldSelectorBytes {
			return fmt.Errorf("a hold's selector is %d bytes; at most %d", len(v), MaxHoldSelectorBytes)
		}
	}
	if set != 1 {
		return errors.New("a hold names exactly one of an agent, a target or a tool")
	}
	return nil
}

// String says the selector as a person reads it: "agent pr-review".
func (s HoldSelector) String() string {
	switch {
	case s.Agent != "":
		return "agent " + s.Agent
	case s.Target != "":
		return "target " + s.Target
	default:
		return "tool " + s.Tool
	}
}

// Matches tells whether the selector holds an action of tool, by a run of
// agent, on any of targets. A target selector without "#" holds every
// target in that repository.
func (s HoldSelector) Matches(c HoldCheck) bool {
	switch {
	case s.Agent != "":
		return s.Agent == c.Agent
	case s.Tool != "":
		return s.Tool == c.Tool
	case s.Target != "":
		for _, t := range c.Targets {
			if t == s.Target || (!strings.Contains(s.Target, "#") && strings.HasPrefix(t, s.Target+"#")) {
				return true
			}
		}
	}
	return false
}

// HoldSignal places or releases a hold. By and Reason are required: they
// are the audit.
type HoldSignal struct {
	Selector HoldSelector `json:"selector"`
	By       string       `json:"by"`
	Reason   string       `json:"reason"`
	Channel  string       `json:"channel,omitempty"`
}

// Validate refuses a hold or release without who and why, or too long.
func (s HoldSignal) Validate() error {
	switch {
	case strings.TrimSpace(s.By) == "":
		return errors.New("a hold or release names who asks it")
	case strings.TrimSpace(s.Reason) == "":
		return errors.New("a hold or release says why")
	case len(s.Reason) > MaxHoldReasonBytes:
		return fmt.Errorf("the reason is %d bytes; at most %d", len(s.Reason), MaxHoldReasonBytes)
	case len(s.By) > MaxHoldSelectorBytes:
		return fmt.Errorf("who is %d bytes; at most %d", len(s.By), MaxHoldSelectorBytes)
	}
	return s.Selector.Validate()
}

// Hold is an active hold.
type Hold struct {
	Selector HoldSelector `json:"selector"`
	By       string       `json:"by"`
	Reason   string       `json:"reason"`
	Channel  string       `json:"channel,omitempty"`
	At       time.Time    `json:"at"`
}

// Label is what a held run's step and label show.
func (h Hold) Label() string { return "held by ops: " + h.Reason }

// Hold log actions.
const (
	HoldPlaced   = "hold"
	HoldReleased = "release"
	// HoldRefused: a signal the holds workflow did not apply, and why.
	HoldRefused = "refused"
)

// HoldEvent is one entry of the holds' audit log.
type HoldEvent struct {
	Action   string       `json:"action"`
	Selector HoldSelector `json:"selector"`
	By       string       `json:"by"`
	Reason   string       `json:"reason"`
	Channel  string       `json:"channel,omitempty"`
	At       time.Time    `json:"at"`
	// Note says what the change did: "replaced the hold placed by …", or
	// why it was refused.
	Note string `json:"note,omitempty"`
}

// HoldsView is the holds workflow's answer to QueryHolds: the active holds,
// oldest first, and the newest MaxHoldLog changes, oldest first.
type HoldsView struct {
	Active []Hold      `json:"active"`
	Log    []HoldEvent `json:"log"`
}

// Matching is the oldest active hold that matches c, or nil.
func (v HoldsView) Matching(c HoldCheck) *Hold {
	for i := range v.Active {
		if v.Active[i].Selector.Matches(c) {
			return &v.Active[i]
		}
	}
	return nil
}

// HoldCheck is what a run asks before it sends an action's attempt.
type HoldCheck struct {
	RunID   string   `json:"runId"`
	Agent   string   `json:"agent"`
	Tool    string   `json:"tool"`
	Targets []string `json:"targets"`
}

// HoldMatch answers a HoldCheck: the hold that stops the action, or nil.
type HoldMatch struct {
	Hold *Hold `json:"hold,omitempty"`
}

// HoldWaiter is a held run waiting to be told of a release.
type HoldWaiter = HoldCheck

// HoldsState is the holds workflow's input, and what its continue-as-new
// carries: the view and the runs waiting on a hold.
type HoldsState struct {
	HoldsView
	Waiters []HoldWaiter `json:"waiters,omitempty"`
}
