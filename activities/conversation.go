package activities

import (
	"context"
	"fmt"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/agentrun/agentrun/api"
)

// errTypeNoConversationStore: ModelNext got a reference on a worker that
// cannot resolve one. Retrying on the same worker cannot help.
const errTypeNoConversationStore = "NoConversationStore"

// ConversationStore resolves a ConversationRef to its messages. The worker's
// store asks the run itself, through a workflow query.
type ConversationStore interface {
	Conversation(ctx context.Context, ref api.ConversationRef) ([]api.Message, error)
}

// resolveConversation returns the messages a ModelInput stands for: the
// inline ones, or those its Ref names once they are proven to be the right ones.
func (a *Activities) resolveConversation(ctx context.Context, in api.ModelInput) ([]api.Message, error) {
	if in.Ref == nil {
		return in.Conversation, nil
	}
	if a.Conversations == nil {
		return nil, temporal.NewNonRetryableApplicationError(
			"model input refers to the conversation of run "+in.Ref.RunID+", but this worker has no conversation store",
			errTypeNoConversationStore, nil)
	}
	messages, err := a.Conversations.Conversation(ctx, *in.Ref)
	if err != nil {
		return nil, fmt.Errorf("resolve the conversation of run %s: %w", in.Ref.RunID, err)
	}
	if err := verifyConversation(*in.Ref, messages); err != nil {
		return nil, err
	}
	return messages, nil
}

func verifyConversation(ref api.ConversationRef, messages []api.Message) error {
	if len(messages) != ref.Length {
		return conversationMismatch(ref, fmt.Sprintf("%d messages instead of %d", len(messages), ref.Length))
	}
	canonical, err := api.CanonicalConversation(messages)
	if err != nil {
		return conversationMismatch(ref, err.Error())
	}
	if digest := api.ConversationDigest(canonical); digest != ref.Digest {
		return conversationMismatch(ref, fmt.Sprintf("digest %s instead of %s", digest, ref.Digest))
	}
	return nil
}

func conversationMismatch(ref api.ConversationRef, why string) error {
	return temporal.NewApplicationError(
		fmt.Sprintf("the conversation of run %s does not match its reference: %s", ref.RunID, why),
		api.ErrTypeConversationMismatch)
}

// QueryConversationStore resolves references by querying the run's workflow.
// The query answers from the run's own state, so nothing is stored twice and
// nothing outlives the run.
type QueryConversationStore struct {
	client client.Client
	// queryName is the run's conversation query, api.QueryConversation
	// unless a test names another.
	queryName string
}

// NewQueryConversationStore returns a store that queries runs through c.
func NewQueryConversationStore(c client.Client, queryName string) *QueryConversationStore {
	return &QueryConversationStore{client: c, queryName: queryName}
}

// Conversation asks the run for its first ref.Length messages.
func (s *QueryConversationStore) Conversation(ctx context.Context, ref api.ConversationRef) ([]api.Message, error) {
	// The empty run ID means the run's current execution, which holds the
	// whole conversation even after a continue-as-new.
	value, err := s.client.QueryWorkflow(ctx, ref.RunID, "", s.queryName, ref.Length)
	if err != nil {
		return nil, fmt.Errorf("query %s of run %s: %w", s.queryName, ref.RunID, err)
	}
	var messages []api.Message
	if err := value.Get(&messages); err != nil {
		return nil, fmt.Errorf("decode the %s query result of run %s: %w", s.queryName, ref.RunID, err)
	}
	return messages, nil
}
