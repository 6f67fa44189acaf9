package workflows

import (
	"cmp"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/agentrun/agentrun/api"
)

// wordsOf are the words of the action a step or an action ran: what the
// outcome says it did, in its tool's words.
func wordsOf(cp *api.Checkpoint, stepID, tool string) api.ToolWords {
	for _, st := range cp.Steps {
		if st.ID == stepID {
			return words(st)
		}
	}
	if pa := cp.ActionForStep(stepID); pa != nil {
		return api.WordsOf(pa.Words, tool)
	}
	return api.DefaultWords(tool)
}

// outcomeOf derives what the run did from its steps and actions: each action
// done (or found done), declined or failed, and each other step that failed.
func outcomeOf(cp *api.Checkpoint) api.Outcome {
	var o api.Outcome
	for _, st := range cp.Steps {
		if st.Type == api.StepToolCall && st.OperationKey != "" {
			actionOutcome(cp, &o, st)
			continue
		}
		if st.Status == api.StepFailed && (st.Type == api.StepToolCall || st.Type == api.StepModelCall) {
			o.Failed = append(o.Failed, api.FailedOutcome{StepID: st.ID, What: stepWhat(st), Error: st.Error})
		}
	}
	if cp.Run.Status == api.RunFailed {
		o.Failed = append(o.Failed, api.FailedOutcome{What: "run", Error: cp.Run.Error})
	}
	for _, e := range cp.SupersedeEdits {
		o.SupersededReviews = append(o.SupersededReviews, *e)
	}
	o.Summary = summary(cp, o)
	return o
}

// resultOutcome is the outcome a run returns, as its snapshot shows it.
func resultOutcome(cp *api.Checkpoint) *api.Outcome {
	o := outcomeOf(cp)
	return &o
}

func actionOutcome(cp *api.Checkpoint, o *api.Outcome, st *api.AgentStep) {
	pa := cp.ActionForStep(st.ID)
	switch {
	case st.Status == api.StepSucceeded:
		p := api.PostedOutcome{StepID: st.ID, Tool: st.ToolName, Target: cp.Run.TargetName(), ExternalID: st.ExternalResourceID,
			Made: words(st).Made(), Effect: st.Effect}
		if st.Effect == api.EffectFound {
			p.Made, p.AlreadyDone = words(st).Found(), words(st).AlreadyDone()
		}
		if pa != nil {
			p.ActionID, p.ApprovedBy, p.Target = pa.ID, pa.DecidedBy, pa.Target
			if pa.Edit != nil {
				p.EditedBy = pa.Edit.By
			}
		}
		if st.ToolName == api.ToolCreateIssueComment {
			p.CommentID, _ = strconv.ParseInt(st.ExternalResourceID, 10, 64)
		}
		var out struct {
			HTMLURL string `json:"htmlUrl"`
			URL     string `json:"url"`
		}
		if json.Unmarshal(st.SafeOutput, &out) == nil {
			p.URL = cmp.Or(out.HTMLURL, out.URL)
		}
		o.Posted = append(o.Posted, p)
	case (st.Status == api.StepRejected || st.Status == api.StepExpired) && pa != nil:
		o.Declined = append(o.Declined, api.DeclinedOutcome{
			StepID: st.ID, ActionID: pa.ID, Tool: st.ToolName, Target: pa.Target, State: pa.State, By: pa.DecidedBy, Reason: pa.Reason,
			Feedback: pa.Feedback, Noun: words(st).Noun,
		})
	case st.Status == api.StepFailed:
		o.Failed = append(o.Failed, api.FailedOutcome{StepID: st.ID, What: stepWhat(st), Error: st.Error})
	case st.Status == api.StepOutcomeUnknown && cp.Run.Status == api.RunCancelled:
		// Only a reconcile that could not tell leaves a cancelled run so.
		o.Failed = append(o.Failed, api.FailedOutcome{StepID: st.ID, What: stepWhat(st),
			Error: "outcome unknown: the run was cancelled and the tool could not tell whether it was " + words(st).Past})
	}
}

func stepWhat(st *api.AgentStep) string {
	if st.ToolName != "" {
		return st.ToolName
	}
	return string(st.Type)
}

// summary is the outcome in one line, in the actions' words, e.g. "Posted
// 1 comment on acme/widgets#1" or "Nothing created on tickets; a ticket
// rejected by bob".
func summary(cp *api.Checkpoint, o api.Outcome) string {
	var (
		parts   []string
		doubt   []string
		doubted = map[string]bool{}
	)
	for _, st := range cp.Steps {
		if api.InDoubt(*st) {
			doubted[st.ID] = true
			w := words(st)
			doubt = append(doubt, fmt.Sprintf("%s may have been %s (operationKey %s)", api.WithArticle(w.Noun), w.Past, st.OperationKey))
		}
	}
	if len(o.Posted) > 0 {
		parts = append(parts, counted(cp, o.Posted)+" on "+cp.Run.TargetName())
	} else if len(doubt) > 0 {
		// Not "nothing": what is in doubt may have been done.
		parts = append(parts, "Nothing surely "+nothingDone(cp)+" on "+cp.Run.TargetName())
	} else if cp.Run.Status.IsTerminal() {
		parts = append(parts, "Nothing "+nothingDone(cp)+" on "+cp.Run.TargetName())
	} else {
		parts = append(parts, "Nothing "+nothingDone(cp)+" yet on "+cp.Run.TargetName())
	}
	for _, p := range o.Posted {
		if p.Effect == api.EffectFound {
			w := wordsOf(cp, p.StepID, p.Tool)
			parts = append(parts, api.WithArticle(w.Noun)+" found "+p.AlreadyDone+", not "+w.Past+" again")
		}
		if p.EditedBy != "" {
			w := wordsOf(cp, p.StepID, p.Tool)
			parts = append(parts, api.WithArticle(w.Noun)+" edited by "+p.EditedBy+" before it was "+w.Past)
		}
	}
	for _, d := range o.Declined {
		a := api.WithArticle(wordsOf(cp, d.StepID, d.Tool).Noun)
		switch {
		case d.Feedback:
			parts = append(parts, a+" sent back with feedback by "+d.By)
		case d.State == api.ActionRejected:
			parts = append(parts, a+" rejected by "+d.By)
		case cp.Cancel != nil && d.Reason == cp.Cancel.Detail():
			parts = append(parts, a+" "+api.DeclinedWords(d, cp.Cancel))
		default:
			parts = append(parts, a+" expired without a decision")
		}
	}
	if cp.Run.Outcome == api.OutcomeNotDone {
		parts = append(parts, "not done: "+api.TruncateUTF8(cp.Run.Result, 200))
	}
	parts = append(parts, doubt...)
	steps := 0
	for _, f := range o.Failed {
		if f.StepID != "" && !doubted[f.StepID] {
			steps++
		}
	}
	if steps > 0 {
		parts = append(parts, fmt.Sprintf("%d step%s failed", steps, plural(steps)))
	}
	if cp.Run.Status == api.RunFailed {
		parts = append(parts, "run failed: "+api.TruncateUTF8(cp.Run.Error, 200))
	}
	return strings.Join(parts, "; ")
}

// nothingDone is what a run that did nothing did not do: its first
// action's participle ("created"), or "done" when it proposed none.
func nothingDone(cp *api.Checkpoint) string {
	for _, st := range cp.Steps {
		if st.Type == api.StepToolCall && st.OperationKey != "" {
			return words(st).Past
		}
	}
	return "done"
}

// counted says how many of each kind were done, by verb, in the order they
// were first done: "Posted 1 comment", "Made 1 label change and opened 2
// issues", "Posted 2 comments and 1 release note".
func counted(cp *api.Checkpoint, posted []api.PostedOutcome) string {
	var verbs []string
	nouns := map[string][]string{}
	n := map[[2]string]int{}
	for _, p := range posted {
		w := wordsOf(cp, p.StepID, p.Tool)
		k := [2]string{w.Past, w.Noun}
		if len(nouns[w.Past]) == 0 {
			verbs = append(verbs, w.Past)
		}
		if n[k] == 0 {
			nouns[w.Past] = append(nouns[w.Past], w.Noun)
		}
		n[k]++
	}
	phrases := make([]string, len(verbs))
	for i, v := range verbs {
		counts := make([]string, len(nouns[v]))
		for j, noun := range nouns[v] {
			c := n[[2]string{v, noun}]
			counts[j] = fmt.Sprintf("%d %s%s", c, noun, plural(c))
		}
		phrases[i] = v + " " + joinList(counts, "and")
	}
	s := joinList(phrases, "and")
	return strings.ToUpper(s[:1]) + s[1:]
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// uiDetails is what the Temporal UI shows next to a run now: its outcome once
// it ended, who may decide while an action waits, else its label.
func uiDetails(cp *api.Checkpoint, now time.Time) string {
	switch {
	case cp.Run.Status.IsTerminal():
		// The one standing every view says (api.StandingOfRun), then what
		// the run did.
		o := outcomeOf(cp)
		st := api.StandingOfOutcome(cp.Run, o, cp.Cancel)
		if st.Detail != "" {
			st.Words += " (" + api.TruncateUTF8(st.Detail, 200) + ")"
		}
		return st.Words + ": " + o.Summary
	case cp.Run.Status == api.RunWaitingForUser:
		for _, pa := range cp.Actions {
			if pa.State == api.ActionWaiting {
				return waitingDetails(cp, pa, now)
			}
		}
	}
	return cp.Label + " (" + cp.Run.TargetName() + ")"
}

// waitingDetails says who may decide and how long is left, e.g. "Waiting
// for alice or bob to approve a comment on acme/widgets#1, 23h left".
func waitingDetails(cp *api.Checkpoint, pa *api.PendingAction, now time.Time) string {
	who := "someone with write access to " + cp.Run.Repo
	if len(cp.Run.Approvers) > 0 {
		who = joinList(cp.Run.Approvers, "or")
	}
	left := pa.ExpiresAt.Sub(now)
	noun := api.WithArticle(api.WordsOf(pa.Words, pa.ToolName).Noun)
	return fmt.Sprintf("Waiting for %s to approve %s on %s, %s left", who, noun, pa.Target, api.HumanDuration(left))
}

// joinList joins words as people write them: "a", "a or b", "a, b or c".
func joinList(words []string, conj string) string {
	if len(words) <= 1 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " " + conj + " " + words[len(words)-1]
}
