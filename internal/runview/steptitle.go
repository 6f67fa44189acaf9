package runview

import (
	"encoding/json"

	"github.com/agentrun/agentrun/api"
)

// StepTitle names a step for people from the step's own fields only, so
// that whatever the page says next to a step (its row, an event or a
// warning on it) describes that step and not whatever the run was doing
// when the event was recorded (an event's Label is the run's label then).
func StepTitle(st api.AgentStep) string {
	switch {
	case st.Type == api.StepHumanApproval && st.Words != nil:
		return "approval to " + st.Words.Or(st.ToolName).Do()
	case st.Type == api.StepToolCall && st.Words != nil:
		return actionTitle(st, st.Words.Or(st.ToolName))
	case st.Type == api.StepHumanApproval && st.ToolName != "":
		return "approval of " + st.ToolName
	case st.Type == api.StepHumanApproval:
		return "approval"
	case st.IsPermissionCheck():
		return permissionCheckTitle(st)
	case st.ToolName != "":
		return st.ToolName
	}
	return string(st.Type)
}

// permissionCheckTitle reads a permission check as a sentence:
// "Checked bob's permission: write". The step's safe input names the login
// and its safe output the permission GitHub answered.
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

// actionTitle names an action's step in its tool's words: what it does,
// or once done what it made, with the ID the tool reported ("created
// ticket T-1001"), or what a look found made before ("found message M-3
// (already sent before the answer was lost)"). A step from before the
// tools' words is titled by its tool's name.
func actionTitle(st api.AgentStep, w api.ToolWords) string {
	if st.Status != api.StepSucceeded {
		return w.Do()
	}
	made := w.Made()
	if st.Effect == api.EffectFound {
		made = w.Found()
	}
	if st.ExternalResourceID != "" {
		made += " " + st.ExternalResourceID
	}
	if st.Effect == api.EffectFound {
		made += " (" + w.AlreadyDone() + ")"
	}
	return made
}
