package agentworker

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/internal/testkit/standalone"
	"github.com/agentrun/agentrun/model/offline"
	"github.com/agentrun/agentrun/model/openai"
)

func TestNewModelDefaultsToTheOfflineReviewer(t *testing.T) {
	for _, provider := range []string{"", "offline"} {
		m, err := NewModel(Config{ModelProvider: provider})
		require.NoError(t, err, provider)
		require.IsType(t, &offline.Reviewer{}, m)
	}
}

func TestNewModelChoosesOpenAIWithItsSettings(t *testing.T) {
	settings := openai.Config{BaseURL: openai.DefaultBaseURL, APIKey: standalone.APIKey, Model: "gpt-4.1-mini"}

	m, err := NewModel(Config{ModelProvider: "openai", OpenAI: settings})
	require.NoError(t, err)
	require.IsType(t, &openai.Model{}, m)

	_, err = NewModel(Config{ModelProvider: "openai", OpenAI: openai.Config{BaseURL: openai.DefaultBaseURL, Model: "gpt-4.1-mini"}})
	require.ErrorContains(t, err, "OPENAI_API_KEY")

	offlineModel, err := NewModel(Config{ModelProvider: "offline", OpenAI: settings})
	require.NoError(t, err)
	require.IsType(t, &offline.Reviewer{}, offlineModel, "the OpenAI settings choose nothing")
}

func TestNewModelRejectsUnknownProviderNamingTheVariable(t *testing.T) {
	for _, provider := range []string{"openai-typo", "OFFLINE", " offline", "open-ai"} {
		m, err := NewModel(Config{ModelProvider: provider})
		require.Nil(t, m)
		require.ErrorContains(t, err, "MODEL_PROVIDER")
		require.ErrorContains(t, err, "known providers: offline, openai")
	}
}
