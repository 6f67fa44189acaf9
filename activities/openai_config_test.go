package activities

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/require"
)

func envOf(vars map[string]string) func(string) string {
	return func(name string) string { return vars[name] }
}

func TestOpenAIConfigFromEnvReadsEveryVariable(t *testing.T) {
	cfg, err := OpenAIConfigFromEnv(envOf(map[string]string{
		"OPENAI_BASE_URL": "http://localhost:11434/v1",
		"OPENAI_API_KEY":  testOpenAIKey,
		"OPENAI_MODEL":    "qwen2.5-coder:7b",
		"OPENAI_ORG":      "org-agentrun",
	}))

	require.NoError(t, err)
	require.Equal(t, OpenAIConfig{
		BaseURL: "http://localhost:11434/v1", APIKey: testOpenAIKey, Model: "qwen2.5-coder:7b", Organization: "org-agentrun",
	}, cfg)
}

func TestOpenAIConfigDefaultsToOpenAIsAPI(t *testing.T) {
	cfg, err := OpenAIConfigFromEnv(envOf(map[string]string{"OPENAI_API_KEY": testOpenAIKey, "OPENAI_MODEL": "gpt-4.1-mini"}))

	require.NoError(t, err)
	require.Equal(t, "https://api.openai.com/v1", cfg.BaseURL)
	require.Empty(t, cfg.Organization)
}

func TestOpenAIConfigRejectsBadValuesNamingTheVariable(t *testing.T) {
	valid := map[string]string{"OPENAI_API_KEY": testOpenAIKey, "OPENAI_MODEL": "gpt-4.1-mini"}
	cases := map[string]struct {
		name, value, message string
	}{
		"missing key":           {"OPENAI_API_KEY", "", "OPENAI_API_KEY: required when MODEL_PROVIDER=openai"},
		"key with newline":      {"OPENAI_API_KEY", testOpenAIKey + "\n", "OPENAI_API_KEY: contains whitespace"},
		"missing model":         {"OPENAI_MODEL", "", "OPENAI_MODEL: required when MODEL_PROVIDER=openai"},
		"model with space":      {"OPENAI_MODEL", "gpt 4", `OPENAI_MODEL: "gpt 4" contains whitespace`},
		"URL without scheme":    {"OPENAI_BASE_URL", "api.openai.com/v1", "OPENAI_BASE_URL:"},
		"URL of another scheme": {"OPENAI_BASE_URL", "ftp://models.internal/v1", "must start with http:// or https://"},
		"URL without host":      {"OPENAI_BASE_URL", "http:///v1", "OPENAI_BASE_URL: \"http:///v1\" has no host"},
		"URL with credentials":  {"OPENAI_BASE_URL", "https://user:hunter2@gw.internal/v1", "OPENAI_BASE_URL: must not carry credentials"},
		"org with space":        {"OPENAI_ORG", "org agentrun", "OPENAI_ORG:"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			vars := map[string]string{tc.name: tc.value}
			for k, v := range valid {
				if k != tc.name {
					vars[k] = v
				}
			}

			_, err := OpenAIConfigFromEnv(envOf(vars))

			require.ErrorContains(t, err, tc.message)
			require.NotContains(t, err.Error(), testOpenAIKey)
			require.NotContains(t, err.Error(), "hunter2")
		})
	}
}

func TestOpenAIConfigNeverPrintsTheKey(t *testing.T) {
	cfg := OpenAIConfig{BaseURL: DefaultOpenAIBaseURL, APIKey: testOpenAIKey, Model: "gpt-4.1-mini"}
	var logged bytes.Buffer
	slog.New(slog.NewJSONHandler(&logged, nil)).Info("model config", "openai", cfg)

	for _, out := range []string{fmt.Sprint(cfg), fmt.Sprintf("%+v", cfg), fmt.Sprintf("%#v", cfg), logged.String()} {
		require.NotContains(t, out, testOpenAIKey)
		require.Contains(t, out, "gpt-4.1-mini")
		require.Contains(t, out, "[redacted]")
	}
}

func TestNewOpenAIModelRejectsAnInvalidConfig(t *testing.T) {
	m, err := NewOpenAIModel(OpenAIConfig{BaseURL: DefaultOpenAIBaseURL, Model: "gpt-4.1-mini"})

	require.Nil(t, m)
	require.ErrorContains(t, err, "OPENAI_API_KEY")
}

func TestNewModelFromEnvChoosesTheProvider(t *testing.T) {
	env := envOf(map[string]string{"OPENAI_API_KEY": testOpenAIKey, "OPENAI_MODEL": "gpt-4.1-mini"})

	openaiModel, err := NewModelFromEnv("openai", env)
	require.NoError(t, err)
	require.IsType(t, &OpenAIModel{}, openaiModel)

	offline, err := NewModelFromEnv("", env)
	require.NoError(t, err)
	require.IsType(t, &OfflineReviewer{}, offline)

	_, err = NewModelFromEnv("openai", envOf(nil))
	require.ErrorContains(t, err, "OPENAI_API_KEY")

	_, err = NewModelFromEnv("open-ai", env)
	require.ErrorContains(t, err, "MODEL_PROVIDER")
	require.ErrorContains(t, err, "known providers: offline, openai")
}

// The configuration is read once, from our variables only: the other OPENAI_*
// variables openai-go would read on its own, and changes after start-up,
// change nothing.
func TestOpenAIModelUsesOnlyTheEnvironmentReadAtStartUp(t *testing.T) {
	fake := newFakeOpenAI(t, okReply("final_answer.json"))
	t.Setenv("OPENAI_BASE_URL", fake.server.URL+"/v1")
	t.Setenv("OPENAI_API_KEY", testOpenAIKey)
	t.Setenv("OPENAI_MODEL", "gpt-4.1-mini")
	t.Setenv("OPENAI_ORG", "")
	t.Setenv("OPENAI_ORG_ID", "org-ambient")
	t.Setenv("OPENAI_PROJECT_ID", "proj-ambient")
	t.Setenv("OPENAI_CUSTOM_HEADERS", "X-Ambient: yes")
	model, err := NewModel("openai")
	require.NoError(t, err)
	t.Setenv("OPENAI_API_KEY", "sk-changed-later")
	t.Setenv("OPENAI_MODEL", "gpt-changed-later")

	_, err = model.Next(context.Background(), reviewConversation(), ToolSpecs())

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
