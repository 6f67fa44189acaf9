package api

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// ActivityLoadFollowUp takes an earlier run's ID and returns its
// FollowUpSource: the run as it ended, read by the worker from the run
// itself (its run and conversation queries), never from a client.
const ActivityLoadFollowUp = "LoadFollowUp"

// MaxFollowUpConversationBytes bounds the earlier conversation a follow-up
// carries, in bytes of its canonical JSON. The conversation enters the new
// run's history once, as the activity's result, and Temporal refuses a
// payload over 2 MB; each tool result in it is already bounded
// (MaxToolResultBytes in activities). A longer conversation is refused,
// saying so, rather than cut: a model that reads half a conversation could
// redo what its missing half did.
const MaxFollowUpConversationBytes = 1 << 20

// FollowUpSource is what a follow-up continues: the earlier run's record
// and its whole conversation, as the earlier run's own queries answer.
type FollowUpSource struct {
	Run          Run       `json:"run"`
	Conversation []Message `json:"conversation"`
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
