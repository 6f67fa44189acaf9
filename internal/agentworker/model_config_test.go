package agentworker

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/internal/testkit/standalone"

	"github.com/agentrun/agentrun/model/openai"
)

func TestConfigFromEnvReadsEveryOpenAIVariable(t *testing.T) {
	cfg, err := ConfigFromEnv(standalone.Getenv(map[string]string{
		"MODEL_PROVIDER":  "openai",
		"OPENAI_BASE_URL": "http://localhost:11434/v1",
		"OPENAI_API_KEY":  standalone.APIKey,
		"OPENAI_MODEL":    "qwen2.5-coder:7b",
		"OPENAI_ORG":      "org-agentrun",
	}))

	require.NoError(t, err)
	require.Equal(t, openai.Config{
		BaseURL: "http://localhost:11434/v1", APIKey: standalone.APIKey, Model: "qwen2.5-coder:7b", Organization: "org-agentrun",
	}, cfg.OpenAI)
}

func TestConfigFromEnvDefaultsToOpenAIsAPI(t *testing.T) {
	cfg, err := ConfigFromEnv(standalone.Getenv(map[string]string{
		"MODEL_PROVIDER": "openai", "OPENAI_API_KEY": standalone.APIKey, "OPENAI_MODEL": "gpt-4.1-mini",
	}))

	require.NoError(t, err)
	require.Equal(t, "https://api.openai.com/v1", cfg.OpenAI.BaseURL)
	require.Empty(t, cfg.OpenAI.Organization)
}

// The OPENAI_* variables matter only to the openai provider: a worker on the
// offline reviewer neither reads nor checks them.
func TestConfigFromEnvIgnoresTheOpenAIVariablesOfAnotherProvider(t *testing.T) {
	cfg, err := ConfigFromEnv(standalone.Getenv(map[string]string{"OPENAI_BASE_URL": "not a url", "OPENAI_MODEL": "gpt 4"}))

	require.NoError(t, err)
	require.Equal(t, openai.Config{}, cfg.OpenAI)
}

func TestConfigFromEnvRejectsABadOpenAIValueNamingItsVariable(t *testing.T) {
	valid := map[string]string{"MODEL_PROVIDER": "openai", "OPENAI_API_KEY": standalone.APIKey, "OPENAI_MODEL": "gpt-4.1-mini"}
	for variable, value := range map[string]string{
		"OPENAI_API_KEY":  "",
		"OPENAI_MODEL":    "gpt 4",
		"OPENAI_BASE_URL": "https://user:hunter2@gw.internal/v1",
		"OPENAI_ORG":      "org agentrun",
	} {
		vars := map[string]string{variable: value}
		for k, v := range valid {
			if k != variable {
				vars[k] = v
			}
		}

		_, err := ConfigFromEnv(standalone.Getenv(vars))

		require.ErrorContains(t, err, variable+":", variable)
		require.NotContains(t, err.Error(), standalone.APIKey)
		require.NotContains(t, err.Error(), "hunter2")
	}
}
