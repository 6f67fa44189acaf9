package activities

import (
	"context"
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

// Conversation takes the conversation handed over for ref, once; a retry
// of the call, or a call on another worker, asks next.
func (h *ConversationHandoff) Conversation(ctx context.Context, ref api.ConversationRef) ([]api.Message, error) {
	k := handoffKey{runID: ref.RunID, digest: ref.Digest, length: ref.Length}
	h.mu.Lock()
	messages, ok := h.offered[k]
	delete(h.offered, k)
	h.mu.Unlock()
	if ok {
		return messages, nil
	}
	return h.next.Conversation(ctx, ref)
}
