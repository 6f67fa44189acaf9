package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentrun/agentrun/api"
)

// writeOutcome prints what the run did: one line per comment posted (with
// its link), per comment rejected or expired, and per failure.
func writeOutcome(b *strings.Builder, snap api.RunSnapshot) {
	o := snap.Outcome
	if o.Summary == "" && len(o.Posted)+len(o.Declined)+len(o.Failed) == 0 {
		return // a run from before outcomes
	}
	fmt.Fprintf(b, "outcome  %s\n", oneLine(o.Summary))
	for _, p := range o.Posted {
		line := "  posted    comment " + orDash(fmt.Sprint(p.CommentID)) + " on " + p.Target
		if p.ApprovedBy != "" {
			line += ", approved by " + p.ApprovedBy
		}
		if p.URL != "" {
			line += ": " + p.URL
		}
		fmt.Fprintln(b, line)
	}
	for _, d := range o.Declined {
		if d.State == api.ActionRejected {
			line := fmt.Sprintf("  rejected  action %s on %s by %s", d.ActionID, d.Target, orDash(d.By))
			if d.Reason != "" {
				line += ": " + oneLine(d.Reason)
			}
			fmt.Fprintln(b, line)
			continue
		}
		fmt.Fprintf(b, "  expired   action %s on %s, without a decision\n", d.ActionID, d.Target)
	}
	for _, f := range o.Failed {
		what := "the run"
		if f.StepID != "" {
			what = f.What + " (" + f.StepID + ")"
		}
		fmt.Fprintf(b, "  failed    %s: %s\n", what, oneLine(f.Error))
	}
}

// stepTitle names a step for people from the step's own fields only, so
// that an event line describes its own step, not what the run was doing when
// it was recorded (an event's Label is the run's label at that moment). The
// approval server's page words steps the same way (approvalsrv/steptitle.go).
func stepTitle(st api.AgentStep) string {
	switch {
	case st.Type == api.StepHumanApproval && st.ToolName != "":
		return "approval of " + st.ToolName
	case st.IsPermissionCheck():
		return permissionCheckTitle(st)
	case st.ToolName != "":
		return st.ToolName
	}
	return string(st.Type)
}

// permissionCheckTitle reads a permission_check step as a sentence:
// "Checked bob's permission: write".
func permissionCheckTitle(st api.AgentStep) string {
	var in struct {
		Login string `json:"login"`
	}
	var out struct {
		Permission string `json:"permission"`
	}
	if json.Unmarshal(st.SafeInput, &in) != nil || in.Login == "" {
		return "permission check"
	}
	switch st.Status {
	case api.StepSucceeded:
		if json.Unmarshal(st.SafeOutput, &out) == nil && out.Permission != "" {
			return "Checked " + in.Login + "'s permission: " + out.Permission
		}
		return "Checked " + in.Login + "'s permission"
	case api.StepFailed:
		return "Could not check " + in.Login + "'s permission"
	}
	return "Checking " + in.Login + "'s permission"
}
