package agentworker

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/activities"
	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/testkit/standalone"
	"github.com/agentrun/agentrun/model/offline"
)

type fixedStore struct{}

func (fixedStore) Conversation(context.Context, api.ConversationRef) ([]api.Message, error) {
	return nil, nil
}

func TestWithConversationStoreGivesActivitiesWithoutOneAQueryStore(t *testing.T) {
	acts := &activities.Activities{Model: offline.NewReviewer()}

	wired := WithConversationStore(nil, acts)

	require.IsType(t, &activities.QueryConversationStore{}, wired.Conversations)
	require.Equal(t, acts.Model, wired.Model)
	require.Nil(t, acts.Conversations, "the caller's activities are left as they were")
}

func TestWithConversationStoreKeepsAStoreTheCallerChose(t *testing.T) {
	acts := &activities.Activities{Conversations: fixedStore{}}

	require.Same(t, acts, WithConversationStore(nil, acts))
}

func TestNewActivitiesCarriesTheBotLoginAndAllowedReposWithoutAnyRequest(t *testing.T) {
	cfg, err := ConfigFromEnv(standalone.Getenv(map[string]string{
		"GITHUB_API_URL":      "http://127.0.0.1:1/",
		"GITHUB_BOT_LOGIN":    "reviewer-app[bot]",
		"AGENT_ALLOWED_REPOS": "acme/widgets",
	}))
	require.NoError(t, err)

	acts, err := NewActivities(cfg)
	require.NoError(t, err)
	require.NoError(t, Identify(context.Background(), acts), "GITHUB_BOT_LOGIN needs no request (nothing listens on port 1)")

	require.Equal(t, "reviewer-app[bot]", acts.GitHub.Login())
	_, err = acts.GitHub.ClientFor("read", api.Target{Owner: "acme", Repo: "widgets", PullNumber: 1})
	require.NoError(t, err)
	_, err = acts.GitHub.ClientFor("read", api.Target{Owner: "acme", Repo: "gadgets", PullNumber: 1})
	require.ErrorContains(t, err, "AGENT_ALLOWED_REPOS", "the allowlist came through to the access")
}

func TestIdentifyFailureNamesGitHubBotLogin(t *testing.T) {
	cfg, err := ConfigFromEnv(standalone.Getenv(map[string]string{"GITHUB_API_URL": "http://127.0.0.1:1/"}))
	require.NoError(t, err)
	acts, err := NewActivities(cfg)
	require.NoError(t, err)

	err = Identify(context.Background(), acts)

	require.ErrorIs(t, err, ErrNoIdentity)
	require.ErrorContains(t, err, "GITHUB_BOT_LOGIN")
	require.Empty(t, acts.GitHub.Login())
}
