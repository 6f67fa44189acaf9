package model_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/internal/testkit/standalone"
	"github.com/agentrun/agentrun/model"
	"github.com/agentrun/agentrun/model/offline"
	"github.com/agentrun/agentrun/model/openai"
)

func TestNewDefaultsToTheOfflineReviewer(t *testing.T) {
	for _, provider := range []string{"", "offline"} {
		m, err := model.New(model.Config{Provider: provider})
		require.NoError(t, err, provider)
		require.IsType(t, &offline.Reviewer{}, m)
	}
}

func TestNewChoosesOpenAIWithItsSettings(t *testing.T) {
	settings := openai.Config{BaseURL: openai.DefaultBaseURL, APIKey: standalone.APIKey, Model: "gpt-4.1-mini"}

	m, err := model.New(model.Config{Provider: "openai", OpenAI: settings})
	require.NoError(t, err)
	require.IsType(t, &openai.Model{}, m)

	_, err = model.New(model.Config{Provider: "openai", OpenAI: openai.Config{BaseURL: openai.DefaultBaseURL, Model: "gpt-4.1-mini"}})
	require.ErrorContains(t, err, "OPENAI_API_KEY")

	offlineModel, err := model.New(model.Config{Provider: "offline", OpenAI: settings})
	require.NoError(t, err)
	require.IsType(t, &offline.Reviewer{}, offlineModel, "the OpenAI settings choose nothing")
}

func TestNewRejectsUnknownProviderNamingTheVariable(t *testing.T) {
	for _, provider := range []string{"openai-typo", "OFFLINE", " offline", "open-ai"} {
		m, err := model.New(model.Config{Provider: provider})
		require.Nil(t, m)
		require.ErrorContains(t, err, "MODEL_PROVIDER")
		require.ErrorContains(t, err, "known providers: offline, openai")
	}
}
