// This file is an action's versions, as its run page keeps them once it is
// decided: each proposal the model made that was sent back (and the
// feedback), rejected or left to expire, its last proposal, and the edit a
// person approved instead, with who made it and what they changed.

package approvalsrv

import (
	"sort"
	"time"

	"github.com/agentrun/agentrun/api"
)

// actionVersion is one version of an action.
type actionVersion struct {
	// Title says whose version it is: "Proposed by the model", "Edited by
	// alice".
	Title string
	At    time.Time
	// Then is what became of it: "Sent back with feedback by bob", with
	// Said, the feedback or the reason.
	Then    string
	Said    string
	Preview string
	// Changes are an edit's changes to the proposal it edited.
	Changes []fieldChange
	// Current: the version the action is now, shown above in full.
	Current bool
}

// versionsOf are action a's versions, oldest first, when it had more than
// one: the earlier proposals of the same tool on the same target that were
// not taken, then a's own proposal and its edit.
func versionsOf(snap api.RunSnapshot, a api.PendingAction) []actionVersion {
	earlier := make([]api.PendingAction, 0, len(snap.Actions))
	for _, e := range snap.Actions {
		if e.ID != a.ID && e.ToolName == a.ToolName && e.Target == a.Target && e.CreatedAt.Before(a.CreatedAt) &&
			(e.State == api.ActionRejected || e.State == api.ActionExpired) {
			earlier = append(earlier, e)
		}
	}
	sort.SliceStable(earlier, func(i, j int) bool { return earlier[i].CreatedAt.Before(earlier[j].CreatedAt) })
	var versions []actionVersion
	for _, e := range earlier {
		v := actionVersion{Title: "Proposed by the model", At: e.CreatedAt, Preview: e.Preview, Said: e.Reason}
		switch {
		case e.State == api.ActionRejected && e.Feedback:
			v.Then = "Sent back with feedback by " + e.DecidedBy
		case e.State == api.ActionRejected:
			v.Then = "Rejected by " + e.DecidedBy
		default:
			v.Then, v.Said = "Expired without a decision", ""
		}
		versions = append(versions, v)
	}
	if a.Edit == nil {
		if len(versions) == 0 {
			return nil
		}
		return append(versions, actionVersion{Title: "Proposed by the model", At: a.CreatedAt, Preview: a.Preview, Current: true})
	}
	versions = append(versions, actionVersion{Title: "Proposed by the model", At: a.CreatedAt, Preview: a.Edit.From.Preview,
		Then: "Edited by " + a.Edit.By + " before approving"})
	edit := actionVersion{Title: "Edited by " + a.Edit.By, At: a.Edit.At, Preview: a.Preview, Current: true}
	if len(a.Edit.From.Args) > 0 && len(a.Args) > 0 {
		edit.Changes = argsChanges(a.Edit.From.Args, a.Args)
	} else {
		edit.Changes = []fieldChange{{Name: "text", Lines: lineDiff(a.Edit.From.Preview, a.Preview)}}
	}
	return append(versions, edit)
}
