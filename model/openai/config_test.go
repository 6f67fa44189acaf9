package openai

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/internal/testkit/reviewtools"
)

func validConfig() Config {
	return Config{BaseURL: DefaultBaseURL, APIKey: testOpenAIKey, Model: "gpt-4.1-mini"}
}

func TestConfigRejectsBadValuesNamingTheVariable(t *testing.T) {
	cases := map[string]struct {
		change  func(*Config)
		message string
	}{
		"missing key":           {func(c *Config) { c.APIKey = "" }, "OPENAI_API_KEY: required when MODEL_PROVIDER=openai"},
		"key with newline":      {func(c *Config) { c.APIKey = testOpenAIKey + "\n" }, "OPENAI_API_KEY: contains whitespace"},
		"missing model":         {func(c *Config) { c.Model = "" }, "OPENAI_MODEL: required when MODEL_PROVIDER=openai"},
		"model with space":      {func(c *Config) { c.Model = "gpt 4" }, `OPENAI_MODEL: "gpt 4" contains whitespace`},
		"URL without scheme":    {func(c *Config) { c.BaseURL = "api.openai.com/v1" }, "OPENAI_BASE_URL:"},
		"URL of another scheme": {func(c *Config) { c.BaseURL = "ftp://models.internal/v1" }, "must start with http:// or https://"},
		"URL without host":      {func(c *Config) { c.BaseURL = "http:///v1" }, "OPENAI_BASE_URL: \"http:///v1\" has no host"},
		"URL with credentials":  {func(c *Config) { c.BaseURL = "https://user:hunter2@gw.internal/v1" }, "OPENAI_BASE_URL: must not carry credentials"},
		"org with space":        {func(c *Config) { c.Organization = "org agentrun" }, "OPENAI_ORG:"},
	}
	require.NoError(t, validConfig().Validate())
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			cfg := validConfig()
			tc.change(&cfg)

			err := cfg.Validate()

			require.ErrorContains(t, err, tc.message)
			require.NotContains(t, err.Error(), testOpenAIKey)
			require.NotContains(t, err.Error(), "hunter2")
		})
	}
}

func TestOpenAIConfigNeverPrintsTheKey(t *testing.T) {
	cfg := Config{BaseURL: DefaultBaseURL, APIKey: testOpenAIKey, Model: "gpt-4.1-mini"}
	var logged bytes.Buffer
	slog.New(slog.NewJSONHandler(&logged, nil)).Info("model config", "openai", cfg)

	for _, out := range []string{fmt.Sprint(cfg), fmt.Sprintf("%+v", cfg), fmt.Sprintf("%#v", cfg), logged.String()} {
		require.NotContains(t, out, testOpenAIKey)
		require.Contains(t, out, "gpt-4.1-mini")
		require.Contains(t, out, "[redacted]")
	}
}

func TestNewOpenAIModelRejectsAnInvalidConfig(t *testing.T) {
	m, err := New(Config{BaseURL: DefaultBaseURL, Model: "gpt-4.1-mini"})

	require.Nil(t, m)
	require.ErrorContains(t, err, "OPENAI_API_KEY")
}

// The configuration is what the worker read once, at start-up: the OPENAI_*
// variables openai-go would read on its own, and changes to the environment
// afterwards, change nothing.
func TestOpenAIModelUsesOnlyItsConfigNotTheEnvironment(t *testing.T) {
	fake := newFakeOpenAI(t, okReply("final_answer.json"))
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/v1")
	t.Setenv("OPENAI_API_KEY", "sk-from-the-environment")
	t.Setenv("OPENAI_MODEL", "gpt-from-the-environment")
	t.Setenv("OPENAI_ORG_ID", "org-ambient")
	t.Setenv("OPENAI_PROJECT_ID", "proj-ambient")
	t.Setenv("OPENAI_CUSTOM_HEADERS", "X-Ambient: yes")
	cfg := fake.config()
	cfg.Organization = ""
	model, err := New(cfg)
	require.NoError(t, err)

	_, err = model.Next(context.Background(), reviewConversation(), reviewtools.Tools())

	require.NoError(t, err)
	req, body := fake.onlyRequest()
	require.Equal(t, "Bearer "+testOpenAIKey, req.Header.Get("Authorization"))
	require.Equal(t, "gpt-4.1-mini", body["model"])
	require.Empty(t, req.Header.Get("OpenAI-Project"))
	require.Empty(t, req.Header.Get("X-Ambient"))
	require.Empty(t, req.Header.Get("OpenAI-Organization"))
}

func TestValidateBaseURLNamesTheVariableAndNeverQuotesAPassword(t *testing.T) {
	cases := map[string]struct {
		raw, message string
	}{
		"unparseable with a password": {"http://user:hunter2@bad host/", `SOME_URL: not a URL: invalid character " " in host name`},
		"credentials":                 {"https://user:hunter2@gw.internal/v1", "SOME_URL: must not carry credentials"},
		"another scheme":              {"ftp://gw.internal/v1", `SOME_URL: "ftp://gw.internal/v1" must start with http:// or https://`},
		"no host":                     {"https:///v1", `SOME_URL: "https:///v1" has no host`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			err := ValidateBaseURL("SOME_URL", tc.raw)

			require.ErrorContains(t, err, tc.message)
			require.NotContains(t, err.Error(), "hunter2")
		})
	}
	require.NoError(t, ValidateBaseURL("SOME_URL", "http://127.0.0.1:8090/api/v3/"))
}
