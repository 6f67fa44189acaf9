package activities

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/agentrun/agentrun/api"
)

// maxHandoffs bounds the conversations a worker keeps for model calls that
// have not come yet: enough for every run of a busy worker between the
// workflow task that schedules a model call and the call's start. An
// older one is dropped, and its call queries the run instead.
const maxHandoffs = 256

// ConversationHandoff is the worker's ConversationStore: a model call
// whose run's workflow handed its conversation over in this process takes
// it from there, and any other goes to next (the conversation query).
// With sticky workflow tasks and eager activities, the ModelNext a
// workflow task schedules usually starts in the process that ran the task,
// so most calls skip the query: a round trip through the server to the
// worker, on every model call after the first. A handed-over conversation
// is checked exactly as a queried one (length and digest, in ModelNext).
type ConversationHandoff struct {
	next ConversationStore

	mu      sync.Mutex
	offered map[handoffKey][]api.Message
	order   []handoffKey // oldest first
}

type handoffKey struct {
	runID, digest string
	length        int
}

// NewConversationHandoff is a handoff in front of next.
func NewConversationHandoff(next ConversationStore) *ConversationHandoff {
	return &ConversationHandoff{next: next, offered: map[handoffKey][]api.Message{}}
}

// Offer keeps conversation[:ref.Length] for the model call that refers to
// it by ref. The workflow calls it as it schedules the call; a call it only
// replays has run already, so nothing is kept then. It never blocks on
// anything but the handoff's own lock and changes nothing the workflow
// reads, so the workflow stays deterministic. The workflow only ever appends
// to a conversation, so the messages are shared, not copied. A nil handoff
// or ref does nothing.
func (h *ConversationHandoff) Offer(ref *api.ConversationRef, conversation []api.Message, replaying bool) {
	if h == nil || ref == nil || ref.Length > len(conversation) || replaying {
		return
	}
	k := handoffKey{runID: ref.RunID, digest: ref.Digest, length: ref.Length}
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.offered[k]; ok {
		return
	}
	if len(h.order) >= maxHandoffs {
		delete(h.offered, h.order[0])
		h.order = h.order[1:]
	}
	h.offered[k] = conversation[:ref.Length:ref.Length]
	h.order = append(h.order, k)
}

// Conversation is VerifiedConversation: a handoff hands over only checked
// messages, whichever way it is asked.
func (h *ConversationHandoff) Conversation(ctx context.Context, ref api.ConversationRef) ([]api.Message, error) {
	return h.VerifiedConversation(ctx, ref)
}

// VerifiedConversation takes the conversation handed over for ref, once,
// and checks it as a queried one is checked: through next's verified prefix
// of the run when next keeps one (only the new messages are hashed), else
// whole. A retry of the call, or a call on another worker, asks next. The
// model gets its own copy: the handed-over messages are the workflow's.
func (h *ConversationHandoff) VerifiedConversation(ctx context.Context, ref api.ConversationRef) ([]api.Message, error) {
	k := handoffKey{runID: ref.RunID, digest: ref.Digest, length: ref.Length}
	h.mu.Lock()
	handed, ok := h.offered[k]
	delete(h.offered, k)
	h.mu.Unlock()
	if ok {
		if a, ok := h.next.(handoffAdopter); ok {
			return a.Adopt(ref, handed)
		}
		messages := cloneMessages(handed)
		return messages, verifyConversation(ref, messages)
	}
	if v, ok := h.next.(verifyingConversationStore); ok {
		return v.VerifiedConversation(ctx, ref)
	}
	messages, err := h.next.Conversation(ctx, ref)
	if err != nil {
		return nil, fmt.Errorf("resolve the conversation of run %s: %w", ref.RunID, err)
	}
	return messages, verifyConversation(ref, messages)
}

// handoffAdopter is a store that checks a handed-over conversation against
// what it already verified of the run: QueryConversationStore.
type handoffAdopter interface {
	Adopt(ref api.ConversationRef, handed []api.Message) ([]api.Message, error)
}

// cloneMessages copies messages down to their tool calls' arguments, so
// that nothing a model does to its copy reaches the workflow's.
func cloneMessages(messages []api.Message) []api.Message {
	out := slices.Clone(messages)
	for i := range out {
		if out[i].ToolCalls != nil {
			out[i].ToolCalls = slices.Clone(out[i].ToolCalls)
			for j := range out[i].ToolCalls {
				out[i].ToolCalls[j].Arguments = slices.Clone(out[i].ToolCalls[j].Arguments)
			}
		}
	}
	return out
}
