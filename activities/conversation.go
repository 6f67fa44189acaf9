package activities

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
)

// ErrTypeConversationMismatch: the conversation a ConversationRef resolved to
// is not the one the workflow named (another length or digest). Retried: the
// run's worker may answer the query correctly on the next attempt.
const ErrTypeConversationMismatch = "ConversationMismatch"

// errTypeNoConversationStore: ModelNext got a reference on a worker that
// cannot resolve one. Retrying on the same worker cannot help.
const errTypeNoConversationStore = "NoConversationStore"

// ConversationRef names a run's conversation without carrying it, so that a
// ModelNext input stays the same size however long the conversation grows.
// The digest makes the reference content-addressed: the activity proves it
// got exactly the messages the workflow meant.
type ConversationRef struct {
	// RunID is the run (the workflow ID) whose conversation query answers.
	RunID string `json:"runId"`
	// Length is how many messages, from the first, the model sees.
	Length int `json:"length"`
	// Digest is the sha256, in hex, of CanonicalConversation of those messages.
	Digest string `json:"digest"`
}

// ConversationStore resolves a ConversationRef to its messages. The worker's
// store asks the run itself, through a workflow query.
type ConversationStore interface {
	Conversation(ctx context.Context, ref ConversationRef) ([]Message, error)
}

// CanonicalConversation is the byte form a ConversationRef's digest covers:
// the messages' JSON once they have made one JSON round trip themselves.
// encoding/json writes struct fields in declaration order and compacts raw
// arguments, but it escapes invalid UTF-8 as \ufffd on the first encoding and
// writes the decoded U+FFFD as is on the next; after one round trip the bytes
// are a fixed point, so the workflow (before its query encodes the messages)
// and the activity (after) arrive at the same digest.
func CanonicalConversation(messages []Message) ([]byte, error) {
	first, err := json.Marshal(messages)
	if err != nil {
		return nil, fmt.Errorf("encode conversation: %w", err)
	}
	var decoded []Message
	if err := json.Unmarshal(first, &decoded); err != nil {
		return nil, fmt.Errorf("decode conversation: %w", err)
	}
	canonical, err := json.Marshal(decoded)
	if err != nil {
		return nil, fmt.Errorf("encode conversation: %w", err)
	}
	return canonical, nil
}

// ConversationDigest is the sha256, in hex, of a canonical conversation.
func ConversationDigest(canonical []byte) string {
	sum := sha256.Sum256(canonical)
	return hex.EncodeToString(sum[:])
}

// resolveConversation returns the messages a ModelInput stands for: the
// inline ones, or those its Ref names once they are proven to be the right ones.
func (a *Activities) resolveConversation(ctx context.Context, in ModelInput) ([]Message, error) {
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

func verifyConversation(ref ConversationRef, messages []Message) error {
	if len(messages) != ref.Length {
		return conversationMismatch(ref, fmt.Sprintf("%d messages instead of %d", len(messages), ref.Length))
	}
	canonical, err := CanonicalConversation(messages)
	if err != nil {
		return conversationMismatch(ref, err.Error())
	}
	if digest := ConversationDigest(canonical); digest != ref.Digest {
		return conversationMismatch(ref, fmt.Sprintf("digest %s instead of %s", digest, ref.Digest))
	}
	return nil
}

func conversationMismatch(ref ConversationRef, why string) error {
	return temporal.NewApplicationError(
		fmt.Sprintf("the conversation of run %s does not match its reference: %s", ref.RunID, why),
		ErrTypeConversationMismatch)
}

// QueryConversationStore resolves references by querying the run's workflow.
// The query answers from the run's own state, so nothing is stored twice and
// nothing outlives the run.
type QueryConversationStore struct {
	client client.Client
	// queryName is the workflow's conversation query; the workflows package
	// owns that wire name, and this package cannot import it.
	queryName string
}

// NewQueryConversationStore returns a store that queries runs through c.
func NewQueryConversationStore(c client.Client, queryName string) *QueryConversationStore {
	return &QueryConversationStore{client: c, queryName: queryName}
}

// Conversation asks the run for its first ref.Length messages.
func (s *QueryConversationStore) Conversation(ctx context.Context, ref ConversationRef) ([]Message, error) {
	// The empty run ID means the run's current execution, which holds the
	// whole conversation even after a continue-as-new.
	value, err := s.client.QueryWorkflow(ctx, ref.RunID, "", s.queryName, ref.Length)
	if err != nil {
		return nil, fmt.Errorf("query %s of run %s: %w", s.queryName, ref.RunID, err)
	}
	var messages []Message
	if err := value.Get(&messages); err != nil {
		return nil, fmt.Errorf("decode the %s query result of run %s: %w", s.queryName, ref.RunID, err)
	}
	return messages, nil
}
