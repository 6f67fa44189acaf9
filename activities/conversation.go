package activities

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
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
	if v, ok := a.Conversations.(verifyingConversationStore); ok {
		return v.VerifiedConversation(ctx, *in.Ref)
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

// verifyingConversationStore is a store that checks length and digest
// itself, as it resolves: QueryConversationStore, which checks only the
// messages it has not checked before.
type verifyingConversationStore interface {
	VerifiedConversation(ctx context.Context, ref api.ConversationRef) ([]api.Message, error)
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
// The query answers from the run's own state; the store keeps, per run, the
// prefix it last verified (bounded, see DefaultConversationCacheBytes), so
// that the next call of the run asks only for the messages after it.
type QueryConversationStore struct {
	client runQuerier
	// queryName is the run's conversation query, api.QueryConversation
	// unless a test names another.
	queryName string
	cache     *conversationCache
}

// runQuerier is the part of client.Client the store uses.
type runQuerier interface {
	QueryWorkflow(ctx context.Context, workflowID, runID, queryType string, args ...any) (converter.EncodedValue, error)
}

// NewQueryConversationStore returns a store that queries runs through c and
// keeps up to DefaultConversationCacheBytes of verified conversations.
func NewQueryConversationStore(c client.Client, queryName string) *QueryConversationStore {
	return NewQueryConversationStoreWithCache(c, queryName, DefaultConversationCacheBytes)
}

// NewQueryConversationStoreWithCache is NewQueryConversationStore keeping up
// to cacheBytes; 0 keeps nothing, and every call fetches the whole conversation.
func NewQueryConversationStoreWithCache(c client.Client, queryName string, cacheBytes int) *QueryConversationStore {
	s := &QueryConversationStore{client: c, queryName: queryName}
	if cacheBytes > 0 {
		s.cache = newConversationCache(cacheBytes)
	}
	return s
}

// Conversation asks the run for its first ref.Length messages.
func (s *QueryConversationStore) Conversation(ctx context.Context, ref api.ConversationRef) ([]api.Message, error) {
	return s.fetch(ctx, ref, 0)
}

// VerifiedConversation returns the messages ref names, checked against its
// length and its digest over the whole conversation. With the run's prefix
// at hand it asks only for the messages after it; when those do not extend
// the prefix to the reference (the workflow ID now names another run, say),
// it asks for everything and checks that from nothing.
func (s *QueryConversationStore) VerifiedConversation(ctx context.Context, ref api.ConversationRef) ([]api.Message, error) {
	if held := s.cache.take(ref.RunID); held != nil && len(held.messages) <= ref.Length {
		p, err := s.extend(ctx, ref, held)
		var appErr *temporal.ApplicationError
		switch {
		case err == nil:
			s.cache.put(p)
			return p.forModel(), nil
		case !errors.As(err, &appErr) || appErr.Type() != api.ErrTypeConversationMismatch:
			// The run could not be asked; what was held is still true.
			s.cache.put(held)
			return nil, err
		}
	}
	messages, err := s.fetch(ctx, ref, 0)
	if err != nil {
		return nil, err
	}
	p, err := verifiedFrom(ref, messages)
	if err != nil {
		return nil, err
	}
	s.cache.put(p)
	return p.forModel(), nil
}

// Adopt checks a conversation handed over in this process for ref, as
// VerifiedConversation checks an answer of the run: on the run's verified
// prefix when the store holds one, so that only the messages after it are
// hashed, else whole. It keeps the result as the run's prefix and gives the
// model a copy.
func (s *QueryConversationStore) Adopt(ref api.ConversationRef, handed []api.Message) ([]api.Message, error) {
	if len(handed) != ref.Length {
		return nil, conversationMismatch(ref, fmt.Sprintf("%d messages instead of %d", len(handed), ref.Length))
	}
	var (
		p   *verifiedPrefix
		err error
	)
	if held := s.cache.take(ref.RunID); held != nil && len(held.messages) <= ref.Length {
		p, err = held.extend(ref, append(slices.Clip(held.messages), cloneMessages(handed[len(held.messages):])...))
	}
	if p == nil || err != nil {
		if p, err = verifiedFrom(ref, cloneMessages(handed)); err != nil {
			return nil, err
		}
	}
	s.cache.put(p)
	return p.forModel(), nil
}

func (s *QueryConversationStore) extend(ctx context.Context, ref api.ConversationRef, held *verifiedPrefix) (*verifiedPrefix, error) {
	from := len(held.messages)
	answer, err := s.fetch(ctx, ref, from)
	if err != nil {
		return nil, err
	}
	if from > 0 && len(answer) == ref.Length {
		// A worker on older code ignores from and answers the whole prefix.
		return verifiedFrom(ref, answer)
	}
	return held.extend(ref, append(slices.Clip(held.messages), answer...))
}

// fetch asks the run for its messages from index from up to ref.Length.
func (s *QueryConversationStore) fetch(ctx context.Context, ref api.ConversationRef, from int) ([]api.Message, error) {
	// The empty run ID means the run's current execution, which holds the
	// whole conversation even after a continue-as-new.
	value, err := s.client.QueryWorkflow(ctx, ref.RunID, "", s.queryName, ref.Length, from)
	if err != nil {
		return nil, fmt.Errorf("resolve the conversation of run %s: query %s: %w", ref.RunID, s.queryName, err)
	}
	var messages []api.Message
	if err := value.Get(&messages); err != nil {
		return nil, fmt.Errorf("decode the %s query result of run %s: %w", s.queryName, ref.RunID, err)
	}
	return messages, nil
}
