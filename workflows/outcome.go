package workflows

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/agentrun/agentrun/api"
)

// What a run tells people: its outcome (in the snapshot and the result), the
// one-line summary a starter sets on the workflow, and the current details
// the Temporal UI shows next to it.

// outcome derives what the run did from its steps and actions.
func (s *runState) outcome() api.Outcome {
	var o api.Outcome
	for _, st := range s.Steps {
		if st.Type == api.StepToolCall && st.ToolName == api.ToolCreateIssueComment {
			s.commentOutcome(&o, st)
			continue
		}
		if st.Status == api.StepFailed && (st.Type == api.StepToolCall || st.Type == api.StepModelCall) {
			o.Failed = append(o.Failed, api.FailedOutcome{StepID: st.ID, What: stepWhat(st), Error: st.Error})
		}
	}
	if s.Run.Status == api.RunFailed {
		o.Failed = append(o.Failed, api.FailedOutcome{What: "run", Error: s.Run.Error})
	}
	o.Summary = s.outcomeSummary(o)
	return o
}

func (s *runState) commentOutcome(o *api.Outcome, st *api.AgentStep) {
	pa := s.actionForStep(st.ID)
	switch {
	case st.Status == api.StepSucceeded:
		p := api.PostedOutcome{StepID: st.ID, Target: s.targetRef()}
		p.CommentID, _ = strconv.ParseInt(st.ExternalResourceID, 10, 64)
		var res api.CommentResult
		if json.Unmarshal(st.SafeOutput, &res) == nil {
			p.URL = res.HTMLURL
		}
		if pa != nil {
			p.ActionID, p.ApprovedBy = pa.ID, pa.DecidedBy
		}
		o.Posted = append(o.Posted, p)
	case (st.Status == api.StepRejected || st.Status == api.StepExpired) && pa != nil:
		o.Declined = append(o.Declined, api.DeclinedOutcome{
			StepID: st.ID, ActionID: pa.ID, Target: pa.Target, State: pa.State, By: pa.DecidedBy, Reason: pa.Reason,
		})
	case st.Status == api.StepFailed:
		o.Failed = append(o.Failed, api.FailedOutcome{StepID: st.ID, What: stepWhat(st), Error: st.Error})
	}
}

func stepWhat(st *api.AgentStep) string {
	if st.ToolName != "" {
		return st.ToolName
	}
	return string(st.Type)
}

// outcomeSummary is the outcome in one line, e.g. "Posted 1 comment on
// acme/widgets#1" or "Nothing posted; 1 comment rejected by bob".
func (s *runState) outcomeSummary(o api.Outcome) string {
	var parts []string
	if n := len(o.Posted); n > 0 {
		parts = append(parts, fmt.Sprintf("Posted %d comment%s on %s", n, plural(n), s.targetRef()))
	} else if s.Run.Status.IsTerminal() {
		parts = append(parts, "Nothing posted on "+s.targetRef())
	} else {
		parts = append(parts, "Nothing posted yet on "+s.targetRef())
	}
	for _, d := range o.Declined {
		if d.State == api.ActionRejected {
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
	if s.Run.Status == api.RunFailed {
		parts = append(parts, "run failed: "+truncateUTF8(s.Run.Error, 200))
	}
	return strings.Join(parts, "; ")
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func (s *runState) targetRef() string {
	return fmt.Sprintf("%s#%d", s.Run.Repo, s.Run.PullNumber)
}

// setDetails is the Temporal UI's "current details" of the run. They are
// not part of the history, so they may change without a version gate.
func (s *runState) setDetails(ctx workflow.Context, details string) {
	workflow.SetCurrentDetails(ctx, details)
}

// refreshDetails makes the current details follow the label; every event
// calls it. The text is built from workflow time, so it replays the same.
func (s *runState) refreshDetails(ctx workflow.Context) {
	switch {
	case s.Run.Status.IsTerminal():
		s.setDetails(ctx, s.Label+": "+s.outcome().Summary)
	case s.Run.Status == api.RunWaitingForUser && len(s.Actions) > 0 && s.Actions[len(s.Actions)-1].State == api.ActionWaiting:
		s.setDetails(ctx, s.waitingDetails(ctx, s.Actions[len(s.Actions)-1]))
	default:
		s.setDetails(ctx, s.Label+" ("+s.targetRef()+")")
	}
}

// waitingDetails says who may decide and how long is left, e.g. "Waiting
// for alice or bob to approve a comment on acme/widgets#1, 23h left".
func (s *runState) waitingDetails(ctx workflow.Context, pa *api.PendingAction) string {
	who := "someone with write access to " + s.Run.Repo
	if len(s.Run.Approvers) > 0 {
		who = orList(s.Run.Approvers)
	}
	left := pa.ExpiresAt.Sub(workflow.Now(ctx))
	return fmt.Sprintf("Waiting for %s to approve a comment on %s, %s left", who, pa.Target, humanDuration(left))
}

// orList joins names as people write them: "a", "a or b", "a, b or c".
func orList(names []string) string {
	if len(names) <= 1 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// humanDuration writes a duration for people, to the unit that matters:
// "3d 2h", "23h", "2h 30m", "45m", "30s". Days start at two, so that a
// day-long approval reads "24h left", not "1d left".
func humanDuration(d time.Duration) string {
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
