package workflows

// A follow-up is a new run in an earlier run's conversation. Its input names
// only the earlier run (RunInput.FollowUp); the run loads that run's record
// and conversation from the earlier run itself, so no client can hand it a
// forged "earlier conversation", and refuses unless the earlier run ended,
// on the same target and agent, and the sender may follow up. Nothing of the
// earlier run runs again: its tool calls are history, answered in its
// conversation, and the new run starts with no open tool calls; its own
// actions get its own operationKeys (<new run id>:<step>).
//
// An earlier action in doubt (an outcome_unknown or abandoned step) is
// carried forward, not refused: the earlier run has ended, so nobody can
// resolve it any more, and a refusal would only send the person to a new
// run that knows nothing of it. The follow-up's conversation answers that
// call "may have been done", with its operationKey and target, and the
// approval of every action of the follow-up on that target names it
// (PendingAction.Caution), through a continue-as-new too. It is carried on
// down a chain of follow-ups: a follow-up of the follow-up knows it too.

import (
	"errors"
	"fmt"
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/agentrun/agentrun/api"
)

// followUpTimeout bounds one attempt to read the earlier run: two queries.
const followUpTimeout = 30 * time.Second

// unansweredCallNote answers, in a loaded conversation, a tool call the
// earlier run never ran (it ended first): a model provider refuses a
// conversation with a call left unanswered, and this run must not run it.
const unansweredCallNote = "not run: the earlier run ended before this call ran, and a follow-up never runs an earlier run's calls"

// startFollowUp opens the run's conversation from the earlier run's, or
// says why it may not. A refused run is listed in a conversation of its
// own, never in the one its input claimed.
func (w *agentRun) startFollowUp(ctx workflow.Context) error {
	id, err := w.loadFollowUp(ctx)
	if err != nil {
		id = w.Run.ID
	}
	// setup published the input's conversation; only another needs a write.
	if id != w.in.ConversationID {
		if uerr := workflow.UpsertTypedSearchAttributes(ctx, api.SearchAttrConversation.ValueSet(id)); uerr != nil {
			workflow.GetLogger(ctx).Warn("upsert ConversationId failed", "error", uerr)
		}
	}
	w.in.ConversationID, w.Run.ConversationID = id, id
	return err
}

// loadFollowUp opens the conversation and returns the earlier run's
// conversation ID.
func (w *agentRun) loadFollowUp(ctx workflow.Context) (string, error) {
	actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: followUpTimeout,
		RetryPolicy:         retryRead(5),
		Summary:             "Load run " + w.in.FollowUp + " to follow up on",
	})
	var src api.FollowUpSource
	if err := workflow.ExecuteActivity(actx, api.ActivityLoadFollowUp, w.in.FollowUp).Get(ctx, &src); err != nil {
		return "", fmt.Errorf("refused: cannot follow up on run %s: %s", w.in.FollowUp, errorMessage(err))
	}
	if src.Run.ID != w.in.FollowUp {
		return "", fmt.Errorf("refused: run %s answered as run %s", w.in.FollowUp, src.Run.ID)
	}
	why, needsWriter := api.RefuseFollowUp(w.in, src.Run)
	if why == "" && needsWriter {
		who := w.in.UserID
		why = w.checkWritePermission(ctx, who, "follow-up", "following up", "",
			map[string]string{"followUp": w.in.FollowUp, "login": who, "repo": w.in.Repo})
	}
	if why != "" {
		return "", errors.New("refused: " + why)
	}
	w.EarlierInDoubt = nil
	for _, a := range src.InDoubt {
		// Another run's action comes only down a chain of follow-ups: the
		// earlier run carried it from the one it followed up.
		if a.RunID == src.Run.ID || src.Run.FollowUp != "" && a.RunID != w.Run.ID {
			w.EarlierInDoubt = append(w.EarlierInDoubt, a)
		}
	}
	if len(src.Conversation) == 0 {
		// The earlier run failed before it opened its conversation: this
		// one opens as that run would have, with the follow-up's goal.
		w.Conversation = opening(w.agent.SystemPrompt, w.agent.Task, w.in)
		return src.Run.ConversationID, nil
	}
	w.Conversation = followUpConversation(src.Conversation, w.EarlierInDoubt, w.in.Goal)
	return src.Run.ConversationID, nil
}

// followUpConversation is a follow-up's opening: the earlier conversation,
// each call it left unanswered answered as not run, each call of an action
// in doubt answered with what is known of it (whatever the earlier run
// answered: "failed: abandoned by ops" would read as not done), and the
// new message.
func followUpConversation(earlier []api.Message, inDoubt []api.InDoubtAction, goal string) []api.Message {
	out := make([]api.Message, 0, len(earlier)+1)
	doubt := map[string]string{}
	for _, a := range inDoubt {
		doubt[a.CallID] = a.Answer()
	}
	answered := map[string]bool{}
	for _, m := range earlier {
		if m.Role == api.RoleTool {
			answered[m.ToolCallID] = true
		}
	}
	for _, m := range earlier {
		if answer, ok := doubt[m.ToolCallID]; ok && m.Role == api.RoleTool {
			m.Content = answer
		}
		out = append(out, m)
		for _, call := range m.ToolCalls {
			if !answered[call.ID] {
				content, ok := doubt[call.ID]
				if !ok {
					content = unansweredCallNote
				}
				out = append(out, api.Message{Role: api.RoleTool, ToolCallID: call.ID, Name: call.Name, Content: content})
				answered[call.ID] = true
			}
		}
	}
	return append(out, api.Message{Role: api.RoleUser, Content: api.FollowUpMessage(goal)})
}
