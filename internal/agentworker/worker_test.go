package agentworker

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/activities"
)

type fixedStore struct{}

func (fixedStore) Conversation(context.Context, activities.ConversationRef) ([]activities.Message, error) {
	return nil, nil
}

func TestWithConversationStoreGivesActivitiesWithoutOneAQueryStore(t *testing.T) {
	acts := &activities.Activities{Model: activities.NewOfflineReviewer()}

	wired := WithConversationStore(nil, acts)

	require.IsType(t, &activities.QueryConversationStore{}, wired.Conversations)
	require.Equal(t, acts.Model, wired.Model)
	require.Nil(t, acts.Conversations, "the caller's activities are left as they were")
}

func TestWithConversationStoreKeepsAStoreTheCallerChose(t *testing.T) {
	acts := &activities.Activities{Conversations: fixedStore{}}

	require.Same(t, acts, WithConversationStore(nil, acts))
}
