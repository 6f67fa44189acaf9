package api

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Outcome is what a run did, for people: what it posted, what people
// rejected or let expire, and what failed. It is derived from the steps and
// actions, so every run has one, however old.
type Outcome struct {
	// Summary is one line, e.g. "Posted 1 comment on acme/widgets#1".
	Summary  string            `json:"summary"`
	Posted   []PostedOutcome   `json:"posted,omitempty"`
	Declined []DeclinedOutcome `json:"declined,omitempty"`
	Failed   []FailedOutcome   `json:"failed,omitempty"`
}

// PostedOutcome is a comment the run posted (or found already posted).
type PostedOutcome struct {
	StepID   string `json:"stepId"`
	ActionID string `json:"actionId,omitempty"`
	Target   string `json:"target"` // owner/name#number
	// CommentID and URL are GitHub's; URL is empty when an operator marked
	// the step succeeded without one.
	CommentID  int64  `json:"commentId,omitempty"`
	URL        string `json:"url,omitempty"`
	ApprovedBy string `json:"approvedBy,omitempty"`
}

// DeclinedOutcome is a gated action that was not taken: rejected by a
// person, or expired (also when the run was cancelled while it waited).
type DeclinedOutcome struct {
	StepID   string      `json:"stepId"`
	ActionID string      `json:"actionId"`
	Target   string      `json:"target"`
	State    ActionState `json:"state"` // rejected or expired
	By       string      `json:"by,omitempty"`
	Reason   string      `json:"reason,omitempty"`
}

// FailedOutcome is a step that failed, or the run itself (StepID empty).
type FailedOutcome struct {
	StepID string `json:"stepId,omitempty"`
	// What names it: a tool name, "model_call", or "run".
	What  string `json:"what"`
	Error string `json:"error"`
}

// Outcome derives what the run did from its steps and actions.
func (cp *Checkpoint) Outcome() Outcome {
	var o Outcome
	for _, st := range cp.Steps {
		if st.Type == StepToolCall && st.ToolName == ToolCreateIssueComment {
			cp.commentOutcome(&o, st)
			continue
		}
		if st.Status == StepFailed && (st.Type == StepToolCall || st.Type == StepModelCall) {
			o.Failed = append(o.Failed, FailedOutcome{StepID: st.ID, What: stepWhat(st), Error: st.Error})
		}
	}
	if cp.Run.Status == RunFailed {
		o.Failed = append(o.Failed, FailedOutcome{What: "run", Error: cp.Run.Error})
	}
	o.Summary = cp.outcomeSummary(o)
	return o
}

func (cp *Checkpoint) commentOutcome(o *Outcome, st *AgentStep) {
	pa := cp.ActionForStep(st.ID)
	switch {
	case st.Status == StepSucceeded:
		p := PostedOutcome{StepID: st.ID, Target: cp.Run.TargetRef()}
		p.CommentID, _ = strconv.ParseInt(st.ExternalResourceID, 10, 64)
		var res CommentResult
		if json.Unmarshal(st.SafeOutput, &res) == nil {
			p.URL = res.HTMLURL
		}
		if pa != nil {
			p.ActionID, p.ApprovedBy = pa.ID, pa.DecidedBy
		}
		o.Posted = append(o.Posted, p)
	case (st.Status == StepRejected || st.Status == StepExpired) && pa != nil:
		o.Declined = append(o.Declined, DeclinedOutcome{
			StepID: st.ID, ActionID: pa.ID, Target: pa.Target, State: pa.State, By: pa.DecidedBy, Reason: pa.Reason,
		})
	case st.Status == StepFailed:
		o.Failed = append(o.Failed, FailedOutcome{StepID: st.ID, What: stepWhat(st), Error: st.Error})
	}
}

func stepWhat(st *AgentStep) string {
	if st.ToolName != "" {
		return st.ToolName
	}
	return string(st.Type)
}

// outcomeSummary is the outcome in one line, e.g. "Posted 1 comment on
// acme/widgets#1" or "Nothing posted; 1 comment rejected by bob".
func (cp *Checkpoint) outcomeSummary(o Outcome) string {
	var parts []string
	if n := len(o.Posted); n > 0 {
		parts = append(parts, fmt.Sprintf("Posted %d comment%s on %s", n, plural(n), cp.Run.TargetRef()))
	} else if cp.Run.Status.IsTerminal() {
		parts = append(parts, "Nothing posted on "+cp.Run.TargetRef())
	} else {
		parts = append(parts, "Nothing posted yet on "+cp.Run.TargetRef())
	}
	for _, d := range o.Declined {
		if d.State == ActionRejected {
			parts = append(parts, "a comment rejected by "+d.By)
		} else {
			parts = append(parts, "a comment expired without a decision")
		}
	}
	steps := 0
	for _, f := range o.Failed {
		if f.StepID != "" {
			steps++
		}
	}
	if steps > 0 {
		parts = append(parts, fmt.Sprintf("%d step%s failed", steps, plural(steps)))
	}
	if cp.Run.Status == RunFailed {
		parts = append(parts, "run failed: "+TruncateUTF8(cp.Run.Error, 200))
	}
	return strings.Join(parts, "; ")
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// Details is what the Temporal UI shows next to a run now: its outcome once
// it ended, who may decide while an action waits, else its label.
func (cp *Checkpoint) Details(now time.Time) string {
	n := len(cp.Actions)
	switch {
	case cp.Run.Status.IsTerminal():
		return cp.Label + ": " + cp.Outcome().Summary
	case cp.Run.Status == RunWaitingForUser && n > 0 && cp.Actions[n-1].State == ActionWaiting:
		return cp.WaitingDetails(cp.Actions[n-1], now)
	}
	return cp.Label + " (" + cp.Run.TargetRef() + ")"
}

// WaitingDetails says who may decide and how long is left, e.g. "Waiting
// for alice or bob to approve a comment on acme/widgets#1, 23h left".
func (cp *Checkpoint) WaitingDetails(pa *PendingAction, now time.Time) string {
	who := "someone with write access to " + cp.Run.Repo
	if len(cp.Run.Approvers) > 0 {
		who = orList(cp.Run.Approvers)
	}
	left := pa.ExpiresAt.Sub(now)
	return fmt.Sprintf("Waiting for %s to approve a comment on %s, %s left", who, pa.Target, HumanDuration(left))
}

// orList joins names as people write them: "a", "a or b", "a, b or c".
func orList(names []string) string {
	if len(names) <= 1 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// HumanDuration writes a duration for people, to the unit that matters:
// "3d 2h", "23h", "2h 30m", "45m", "30s". Days start at two, so that a
// day-long approval reads "24h left", not "1d left".
func HumanDuration(d time.Duration) string {
	if d <= 0 {
		return "0s"
	}
	hours, minutes := int(d/time.Hour), int(d%time.Hour/time.Minute)
	switch {
	case hours >= 48 && hours%24 > 0:
		return fmt.Sprintf("%dd %dh", hours/24, hours%24)
	case hours >= 48:
		return fmt.Sprintf("%dd", hours/24)
	case hours >= 10 || (hours > 0 && minutes == 0):
		return fmt.Sprintf("%dh", hours)
	case hours > 0:
		return fmt.Sprintf("%dh %dm", hours, minutes)
	case minutes > 0:
		return fmt.Sprintf("%dm", minutes)
	default:
		return fmt.Sprintf("%ds", max(int(d/time.Second), 1))
	}
}
