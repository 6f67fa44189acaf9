package api

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
)

// ActivityLoadFollowUp takes an earlier run's ID and returns its
// FollowUpSource: the run as it ended, read by the worker from the run
// itself (its run and conversation queries), never from a client.
const ActivityLoadFollowUp = "LoadFollowUp"

// MaxFollowUpConversationBytes bounds the earlier conversation a follow-up
// carries, in bytes of its canonical JSON. The conversation enters the new
// run's history once, as the activity's result, and Temporal refuses a
// payload over 2 MB; each tool result in it is already bounded
// (MaxToolResultBytes). A longer conversation is refused,
// saying so, rather than cut: a model that reads half a conversation could
// redo what its missing half did.
const MaxFollowUpConversationBytes = 1 << 20

// FollowUpSource is what a follow-up continues: the earlier run's record
// and its whole conversation, as the earlier run's own queries answer.
type FollowUpSource struct {
	Run          Run       `json:"run"`
	Conversation []Message `json:"conversation"`
	// InDoubt are the actions whose effect may exist though nobody saw it,
	// whatever the conversation says of them: the earlier run's, and those
	// it carried from the runs it followed up (FollowUpInDoubt).
	InDoubt []InDoubtAction `json:"inDoubt,omitempty"`
}

// AbandonedBy starts the error of an action's step an operator abandoned
// (resolve "abandon"): the run stops trying, and nobody knows whether the
// effect exists.
const AbandonedBy = "abandoned by "

// InDoubtAnswer starts what the model reads of an action in doubt, in
// place of a result: never "failed" or "not run", which would read as not
// done.
const InDoubtAnswer = "outcome unknown: "

// InDoubt reports whether st is an action whose effect may exist though
// nobody saw it: it ended outcome_unknown (a cancelled run whose look
// could not tell), or an operator abandoned it.
func InDoubt(st AgentStep) bool {
	return st.OperationKey != "" &&
		(st.Status == StepOutcomeUnknown || st.Status == StepFailed && strings.HasPrefix(st.Error, AbandonedBy))
}

// InDoubtAction is an action in doubt (InDoubt), as a follow-up carries it
// forward: which call it answered, under which operationKey, on what.
type InDoubtAction struct {
	RunID        string     `json:"runId"`
	StepID       string     `json:"stepId"`
	CallID       string     `json:"callId"`
	Tool         string     `json:"tool"`
	OperationKey string     `json:"operationKey"`
	Target       string     `json:"target"`
	Words        *ToolWords `json:"words,omitempty"`
	// ArgsHash is its approved action's (PendingAction.ArgsHash), or
	// empty when it asked nobody: a later call with the same one repeats it.
	ArgsHash string `json:"argsHash,omitempty"`
	// Why is how it ended: the step's error, or that its look could not
	// tell.
	Why string `json:"why,omitempty"`
	// ResendNotBefore is its step's (AgentStep.ResendNotBefore): until
	// then its last attempt may still land, and a follow-up that repeats
	// it keeps looking rather than send (the gate).
	ResendNotBefore *time.Time `json:"resendNotBefore,omitempty"`
}

// StepTarget is the target an action's step records in its input
// (redact.Action), or "" for a step that names none.
func StepTarget(st AgentStep) string {
	var in struct {
		Target string `json:"target"`
	}
	_ = json.Unmarshal(st.SafeInput, &in) // a step without a target names none
	return in.Target
}

// InDoubtOf is run runID's step st as an action in doubt.
func InDoubtOf(runID string, st AgentStep) InDoubtAction {
	why := st.Error
	if st.Status == StepOutcomeUnknown {
		why = "no look could tell whether it was " + WordsOf(st.Words, st.ToolName).Past
	}
	return InDoubtAction{RunID: runID, StepID: st.ID, CallID: st.CallID, Tool: st.ToolName, OperationKey: st.OperationKey,
		Target: StepTarget(st), Words: st.Words, Why: why, ResendNotBefore: st.ResendNotBefore}
}

// InDoubtActions are the actions in doubt among run runID's steps, each
// with its approved action's ArgsHash from actions.
func InDoubtActions(runID string, steps []AgentStep, actions []PendingAction) []InDoubtAction {
	var out []InDoubtAction
	for _, st := range steps {
		if !InDoubt(st) {
			continue
		}
		a := InDoubtOf(runID, st)
		for _, pa := range actions {
			if pa.StepID == st.ID {
				a.ArgsHash = pa.ArgsHash
			}
		}
		out = append(out, a)
	}
	return out
}

// FollowUpInDoubt are the actions in doubt a follow-up of the run snap
// shows carries on: the run's own among steps, all its steps, and those it
// carries itself from the runs it follows up, down the whole chain.
func FollowUpInDoubt(snap RunSnapshot, steps []AgentStep) []InDoubtAction {
	return append(InDoubtActions(snap.Run.ID, steps, snap.Actions), snap.EarlierInDoubt...)
}

// Answer is what the model reads of the call: it may have been done.
func (a InDoubtAction) Answer() string {
	w := WordsOf(a.Words, a.Tool)
	return fmt.Sprintf("%sthe %s may have been %s on %s (operationKey %s, run %s): %s. Nobody saw whether it was; do not take it as not done.",
		InDoubtAnswer, w.Noun, w.Past, a.Target, a.OperationKey, a.RunID, a.Why)
}

// Caution is what an approver of another action on the same target reads.
func (a InDoubtAction) Caution() string {
	w := WordsOf(a.Words, a.Tool)
	return fmt.Sprintf("run %s's %s under operationKey %s may have been %s on %s (%s)", a.RunID, w.Noun, a.OperationKey, w.Past, a.Target, a.Why)
}

// RefuseFollowUp says why in cannot follow up on earlier, or "": the
// earlier run must have ended, on the same target and agent, with the same
// approvers, and in.UserID must be its requester or one of its approvers.
// needsWriter: that holds only if in.UserID may write to the target's
// repository (the earlier run names no approvers), which the caller asks
// the target's permission source. Every channel applies it early; the new
// run applies it again, on what it loaded itself, as the final word.
func RefuseFollowUp(in RunInput, earlier Run) (why string, needsWriter bool) {
	who := strings.TrimSpace(in.UserID)
	shown := TruncateUTF8(who, 64)
	target, err := in.RunTarget()
	if err != nil {
		return err.Error(), false
	}
	earlierTarget, err := RunInput{Repo: earlier.Repo, PullNumber: earlier.PullNumber, Target: earlier.Target}.RunTarget()
	switch {
	case who == "":
		return "a follow-up must name who sends it (userId)", false
	case !earlier.Status.IsTerminal():
		return fmt.Sprintf("run %s is still open (%s): follow up once it has ended", earlier.ID, earlier.Status), false
	case err != nil || earlierTarget.Ref() != target.Ref() || earlierTarget.KindName() != target.KindName():
		return fmt.Sprintf("run %s was on another target (%s), and a follow-up stays on its run's", earlier.ID, earlierTarget.Ref()), false
	case cmp.Or(earlier.Agent, DefaultAgent) != cmp.Or(in.Agent, DefaultAgent):
		return fmt.Sprintf("run %s was run by agent %s, and a follow-up keeps its run's agent", earlier.ID, cmp.Or(earlier.Agent, DefaultAgent)), false
	case !sameLogins(earlier.Approvers, in.Approvers):
		return fmt.Sprintf("a follow-up keeps run %s's approvers (%s)", earlier.ID, strings.Join(earlier.Approvers, ", ")), false
	case SameLogin(earlier.UserID, who), IsApprover(earlier.Approvers, who):
		return "", false
	case len(earlier.Approvers) > 0:
		return fmt.Sprintf("%s may not follow up on run %s: only its requester or an approver may", shown, earlier.ID), false
	}
	return "", true
}

// sameLogins reports whether a and b hold the same logins, as sets.
func sameLogins(a, b []string) bool {
	covers := func(x, y []string) bool {
		for _, l := range x {
			if !slices.ContainsFunc(y, func(m string) bool { return SameLogin(l, m) }) {
				return false
			}
		}
		return true
	}
	return covers(a, b) && covers(b, a)
}

// FollowUpInput is the input of a follow-up on earlier: its target, agent
// and approvers, user's goal, and earlier's conversation.
func FollowUpInput(earlier Run, user, goal string) RunInput {
	return RunInput{
		Repo: earlier.Repo, PullNumber: earlier.PullNumber, Target: earlier.Target,
		Agent: earlier.Agent, Approvers: slices.Clone(earlier.Approvers),
		UserID: user, Goal: goal, FollowUp: earlier.ID, ConversationID: earlier.ConversationID,
	}
}
