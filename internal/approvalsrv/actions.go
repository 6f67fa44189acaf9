package approvalsrv

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/runclient"
)

type actionView struct {
	api.PendingAction
	// Key changes whenever the action's form or its headings must be
	// redrawn.
	Key  string
	Open bool
	// Fate is what became of the action, for its headings.
	Fate      actionFate
	Approvers []string
	// Suffix keeps the element IDs of the second and later actions apart;
	// the first keeps the plain ones (#preview, #reason).
	Suffix string
	Form   formView
	// Versions are the action's versions when it had more than one: the
	// model's proposals sent back, its last proposal, and a person's edit.
	Versions []actionVersion
}

// formView is what one decision form posts besides the person's choice.
type formView struct {
	RunID     string
	ActionID  string
	ArgsHash  string
	CSRF      string
	RequestID string
	Suffix    string
	Viewer    viewer
	// Edit is the edit form of an action that may be edited (Editable);
	// an approve posts its fields as the action's edited arguments.
	Edit *editForm
	// typed is what a person posted in an edit form, for the page that
	// answers it without script.
	typed *typedEdit
}

// batchView is the form that approves every open action of the run at once,
// each bound to the input its preview on this page shows.
type batchView struct {
	Form formView
	Refs []api.ActionRef
	Key  string
}

// actionViews lists the run's waiting actions, oldest first, or, when none
// waits, its newest action, so that the page still says what became of it.
// A run whose agent takes batches gets an "approve all" form over two or
// more open actions.
func (s *pages) actionViews(snap api.RunSnapshot, form formView) ([]actionView, *batchView) {
	var actions []api.PendingAction
	for _, a := range snap.Actions {
		if a.State == api.ActionWaiting {
			actions = append(actions, a)
		}
	}
	if len(actions) == 0 && snap.PendingAction != nil {
		actions = []api.PendingAction{*snap.PendingAction}
	}
	views := make([]actionView, len(actions))
	var open []api.ActionRef
	for i, a := range actions {
		views[i] = s.actionView(snap, a, form, i)
		if views[i].Open {
			open = append(open, api.ActionRef{ActionID: a.ID, ArgsHash: a.ArgsHash})
		}
	}
	if !snap.Run.BatchApproval || len(open) < 2 {
		return views, nil
	}
	open = open[:min(len(open), api.MaxBatch)]
	batch := &batchView{Form: form, Refs: open}
	batch.Form.RequestID, batch.Form.Suffix = form.RequestID+"-all", "-all"
	keys := make([]string, len(open))
	for i, ref := range open {
		keys[i] = ref.ActionID + "=" + ref.ArgsHash
	}
	batch.Key = strings.Join(keys, ",")
	return views, batch
}

func (s *pages) actionView(snap api.RunSnapshot, a api.PendingAction, form formView, i int) actionView {
	approvers := a.Approvers
	if len(approvers) == 0 {
		approvers = snap.Run.Approvers
	}
	open := a.State == api.ActionWaiting && s.now().Before(a.ExpiresAt) && !snap.Run.Status.IsTerminal()
	suffix := ""
	if i > 0 {
		suffix = fmt.Sprintf("-%d", i+1)
	}
	form.ActionID, form.ArgsHash, form.Suffix = a.ID, a.ArgsHash, suffix
	if a.Editable && open {
		var typed *typedEdit
		if t := form.typed; t != nil && t.ActionID == a.ID {
			typed = t
		}
		form.Edit = newEditForm(a, suffix, typed)
	}
	// Each form is its own request: the run remembers a requestId per
	// action, and the batch names several.
	form.RequestID += suffix
	fate := fateOf(snap, a, open)
	key := fmt.Sprintf("%s/%s/%t/%s", a.ID, a.State, open, fate.Tense)
	return actionView{
		Versions:      versionsOf(snap, a),
		PendingAction: a,
		Key:           key,
		Open:          open,
		Fate:          fate,
		Approvers:     approvers,
		Suffix:        suffix,
		Form:          form,
	}
}

// actionFate heads an action's section in the tense of what the run has
// recorded: a comment is "as posted" only once the run says it was made,
// and "would have" shown once nothing will make it.
type actionFate struct {
	// Tense is "open", "approved" (not made yet), "done" or "not-done".
	Tense   string
	Heading string
	// What is what the exact bytes are ("what was approved"); Shown heads
	// their rendering, with the target.
	What  string
	Shown string
}

func fateOf(snap api.RunSnapshot, a api.PendingAction, open bool) actionFate {
	by := func(s string) string {
		if a.DecidedBy == "" {
			return s
		}
		return s + " by " + a.DecidedBy
	}
	switch {
	case open:
		return actionFate{Tense: "open", Heading: "Waiting for your decision", What: "what is approved", Shown: "As " + a.Target + " will show it"}
	case a.State == api.ActionApproved && madeByRun(snap, a.ID):
		return actionFate{Tense: "done", Heading: "Done, " + by("approved"), What: "what was approved", Shown: "As posted on " + a.Target}
	case a.State == api.ActionApproved && !snap.Run.Status.IsTerminal():
		return actionFate{Tense: "approved", Heading: by("Approved") + ", not done yet", What: "what was approved", Shown: "As " + a.Target + " will show it"}
	}
	not := actionFate{Tense: "not-done", What: "what was proposed", Shown: "As " + a.Target + " would have shown it"}
	switch {
	case a.State == api.ActionApproved:
		not.Heading, not.What = by("Approved")+", not done", "what was approved"
	case a.State == api.ActionRejected && a.Feedback:
		not.Heading = by("Sent back with feedback")
	case a.State == api.ActionRejected:
		not.Heading = by("Rejected")
	case a.State == api.ActionExpired && snap.Cancel != nil && a.Reason == snap.Cancel.Detail():
		not.Heading = "Not decided: " + a.Reason
	case a.State == api.ActionExpired:
		not.Heading = "Expired without a decision"
	default: // waiting, but its time or its run is over
		not.Heading = "Not decided"
	}
	return not
}

// madeByRun says whether the run's outcome lists action ID as done.
func madeByRun(snap api.RunSnapshot, actionID string) bool {
	for _, p := range snap.Outcome.Posted {
		if p.ActionID == actionID {
			return true
		}
	}
	return false
}

// inboxTitle says what a waiting action does, in its tool's words, and
// where: "Post a comment on acme/widgets#1".
func inboxTitle(a runclient.PendingApproval) string {
	where := cmp.Or(a.Target, a.RunTarget)
	do := api.WordsOf(a.Words, a.Tool).Do()
	title := strings.ToUpper(do[:1]) + do[1:]
	if where == "" {
		return title
	}
	return title + " on " + where
}
