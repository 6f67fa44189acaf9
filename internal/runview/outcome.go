package runview

import (
	"fmt"
	"strings"

	"github.com/agentrun/agentrun/api"
)

// writeOutcome prints what the run did: one line per action done, in its
// tool's words and with the ID the tool reported (and its link), per
// action rejected or expired, and per failure.
func writeOutcome(b *strings.Builder, snap api.RunSnapshot) {
	o := snap.Outcome
	if o.Summary == "" && len(o.Posted)+len(o.Declined)+len(o.Failed) == 0 {
		return // a run from before outcomes
	}
	fmt.Fprintf(b, "outcome  %s\n", OneLine(o.Summary))
	for _, p := range o.Posted {
		line := "  done      " + Made(p) + " on " + p.Target
		if p.ApprovedBy != "" {
			line += ", approved by " + p.ApprovedBy
		}
		if p.URL != "" {
			line += ": " + p.URL
		}
		fmt.Fprintln(b, line)
	}
	for _, d := range o.Declined {
		by := ""
		if d.Reason != "" {
			by = ": " + OneLine(d.Reason)
		}
		switch {
		case d.Feedback:
			fmt.Fprintf(b, "  sent back action %s on %s with feedback by %s%s\n", d.ActionID, d.Target, orDash(d.By), by)
		case d.State == api.ActionRejected:
			fmt.Fprintf(b, "  rejected  action %s on %s by %s%s\n", d.ActionID, d.Target, orDash(d.By), by)
		case snap.Cancel != nil && d.Reason == snap.Cancel.Detail():
			fmt.Fprintf(b, "  cancelled action %s on %s, %s\n", d.ActionID, d.Target, OneLine(api.DeclinedWords(d, snap.Cancel)))
		default:
			fmt.Fprintf(b, "  expired   action %s on %s, without a decision\n", d.ActionID, d.Target)
		}
	}
	for _, f := range o.Failed {
		what := "the run"
		if f.StepID != "" {
			what = f.What + " (" + f.StepID + ")"
		}
		fmt.Fprintf(b, "  failed    %s: %s\n", what, OneLine(f.Error))
	}
}

// Made says what an action did and what it made: "created ticket T-1001",
// or "found message M-3 (already sent before the answer was lost)".
// A run from before the tools' words says its tool's name.
func Made(p api.PostedOutcome) string {
	id := p.ExternalID
	if id == "" && p.CommentID != 0 {
		id = fmt.Sprint(p.CommentID)
	}
	what := p.Made
	switch {
	case what == "" && p.CommentID != 0:
		what = "posted comment"
	case what == "":
		what = orDash(p.Tool)
	}
	if id != "" {
		what += " " + id
	}
	if p.AlreadyDone != "" {
		what += " (" + p.AlreadyDone + ")"
	}
	return what
}
