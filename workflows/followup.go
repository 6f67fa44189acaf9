package workflows

// A follow-up is a new run in an earlier run's conversation. Its input names
// only the earlier run (RunInput.FollowUp); the run loads that run's record
// and conversation from the earlier run itself, so no client can hand it a
// forged "earlier conversation", and refuses unless the earlier run ended,
// on the same target and agent, and the sender may follow up. Nothing of the
// earlier run runs again: its tool calls are history, answered in its
// conversation, and the new run starts with no open tool calls; its own
// actions get its own operationKeys (<new run id>:<step>).

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
	w.Conversation = followUpConversation(src.Conversation, w.in.Goal)
	return src.Run.ConversationID, nil
}

// followUpConversation is a follow-up's opening: the earlier conversation,
// each call it left unanswered answered as not run, and the new message.
func followUpConversation(earlier []api.Message, goal string) []api.Message {
	out := make([]api.Message, 0, len(earlier)+1)
	answered := map[string]bool{}
	for _, m := range earlier {
		if m.Role == api.RoleTool {
			answered[m.ToolCallID] = true
		}
	}
	for _, m := range earlier {
		out = append(out, m)
		for _, call := range m.ToolCalls {
			if !answered[call.ID] {
				out = append(out, api.Message{Role: api.RoleTool, ToolCallID: call.ID, Name: call.Name, Content: unansweredCallNote})
				answered[call.ID] = true
			}
		}
	}
	return append(out, api.Message{Role: api.RoleUser, Content: followUpMessage(goal)})
}

// followUpMessage is the new user message of a follow-up: its goal, in the
// shape of an opening's goal line, so a model reads it the same way.
func followUpMessage(goal string) string {
	return "Follow-up on the same target.\nGoal: " + goal
}
