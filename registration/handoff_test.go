package registration_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/activities"
	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/registration"
)

type queryStore struct{}

func (queryStore) Conversation(context.Context, api.ConversationRef) ([]api.Message, error) {
	return nil, nil
}

func TestRegisterPutsAHandoffInFrontOfTheCallersConversationStoreOnce(t *testing.T) {
	acts := &activities.Activities{Conversations: queryStore{}}

	registration.Register(&recorder{}, acts)
	handoff, ok := acts.Conversations.(*activities.ConversationHandoff)
	require.True(t, ok, "the workflow and the activities share one handoff")

	// Registered again (a second worker of the process), the handoff is kept:
	// a workflow offering to one and its calls taking from another would
	// never meet.
	registration.Register(&recorder{}, acts)
	require.Same(t, handoff, acts.Conversations)
}

func TestRegisterWithoutAConversationStoreAddsNoHandoff(t *testing.T) {
	acts := &activities.Activities{}

	registration.Register(&recorder{}, acts)

	require.Nil(t, acts.Conversations, "ModelNext still says it has no store")
}
