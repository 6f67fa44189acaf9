package modelcall

import (
	"fmt"

	"github.com/agentrun/agentrun/api"
)

// Opening opens a run's conversation: the agent's system prompt, and its
// task on the run's pull request.
func Opening(systemPrompt, task string, in api.RunInput) []api.Message {
	user := fmt.Sprintf("%s %s#%d.", task, in.Repo, in.PullNumber)
	if in.Target != nil {
		user = fmt.Sprintf("%s %s.", task, in.Target.Ref())
	}
	if in.Goal != "" {
		user += "\nGoal: " + in.Goal
	}
	return []api.Message{
		{Role: api.RoleSystem, Content: systemPrompt},
		{Role: api.RoleUser, Content: user},
	}
}

// NewInput carries the conversation inline while it is small, and past
// inlineLimit bytes (RunInput.InlineConversationBytes; negative: no limit) a
// reference the activity resolves through the
// conversation query: re-sending the whole conversation on every call would
// make history grow with the square of the number of calls. It also returns
// the conversation's size in bytes.
func NewInput(runID string, conversation []api.Message, tools []api.ToolSpec, inlineLimit int) (api.ModelInput, int, error) {
	return (&Encoding{}).NewInput(runID, conversation, tools, inlineLimit)
}

// Encoding remembers the canonical JSON of each message it has encoded, so
// that a run which calls the model after every turn encodes each message
// once, not the whole conversation on every call (the workflow's share of
// CanonicalConversation was 4% of the bench's CPU). It relies on the
// conversation only growing at its end; the zero value is ready, and a run
// restored from a checkpoint starts with an empty one.
type Encoding struct {
	parts [][]byte
}

// Canonical is api.CanonicalConversation(messages): encoding/json writes a
// slice as its elements' own encodings between brackets, one comma apart.
func (e *Encoding) Canonical(messages []api.Message) ([]byte, error) {
	if len(messages) == 0 {
		return api.CanonicalConversation(messages) // null or [], as that says
	}
	if len(e.parts) > len(messages) {
		e.parts = nil
	}
	size := 2
	for i := range messages {
		if i >= len(e.parts) {
			part, err := api.CanonicalConversation(messages[i : i+1])
			if err != nil {
				return nil, err
			}
			// Drop the one-element list's brackets.
			e.parts = append(e.parts, part[1:len(part)-1])
		}
		size += len(e.parts[i]) + 1
	}
	out := make([]byte, 0, size)
	out = append(out, '[')
	for i, part := range e.parts[:len(messages)] {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, part...)
	}
	return append(out, ']'), nil
}

// NewInput is the package's NewInput over this encoding.
func (e *Encoding) NewInput(runID string, conversation []api.Message, tools []api.ToolSpec, inlineLimit int) (api.ModelInput, int, error) {
	canonical, err := e.Canonical(conversation)
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
