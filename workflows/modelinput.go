package workflows

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/redact"
)

// opening opens a run's conversation: the agent's system prompt, and its
// task on the run's target.
func opening(systemPrompt, task string, in api.RunInput) []api.Message {
	target := fmt.Sprintf("%s#%d", in.Repo, in.PullNumber)
	if in.Target != nil {
		target = in.Target.Ref()
	}
	user := api.OpeningMessage(task, target, in.Goal)
	if in.PostsWithoutAsking != "" {
		// The agent's prompt may say a person approves; this run's does not.
		systemPrompt += "\n\nIn this run no person approves your actions: each runs at once, as you propose it (" + in.PostsWithoutAsking + ")."
	}
	return []api.Message{
		{Role: api.RoleSystem, Content: systemPrompt},
		{Role: api.RoleUser, Content: user},
	}
}

// modelInput carries the conversation inline while it is small, and past
// inlineLimit bytes (RunInput.InlineConversationBytes; negative: no limit)
// a reference the activity resolves through the conversation query (or
// the handoff): re-sending the whole conversation on every call would make
// history grow with the square of the number of calls. It also returns the
// conversation's size in bytes.
func modelInput(enc *api.ConversationEncoding, runID string, conversation []api.Message, tools []api.ToolSpec, inlineLimit int) (api.ModelInput, int, error) {
	canonical, err := enc.Canonical(conversation)
	if err != nil {
		return api.ModelInput{}, 0, fmt.Errorf("model call: %w", err)
	}
	in := api.ModelInput{Tools: tools}
	if inlineLimit < 0 || len(canonical) <= inlineLimit {
		in.Conversation = conversation
		return in, len(canonical), nil
	}
	in.Ref = &api.ConversationRef{
		RunID:  runID,
		Length: len(conversation),
		Digest: api.ConversationDigest(canonical),
	}
	return in, len(canonical), nil
}

// safeArguments is what a tool call's step shows of its arguments: an
// empty JSON object for none.
func safeArguments(raw json.RawMessage) json.RawMessage {
	if len(bytes.TrimSpace(raw)) == 0 {
		raw = json.RawMessage("{}")
	}
	return redact.JSON(raw)
}

// toolNames names the tools a model call offers, for its step record.
func toolNames(tools []api.ToolSpec) []string {
	names := make([]string, len(tools))
	for i, t := range tools {
		names[i] = t.Name
	}
	return names
}
