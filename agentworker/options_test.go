package agentworker

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/agents"
	"github.com/agentrun/agentrun/api"
	wiring "github.com/agentrun/agentrun/internal/agentworker"
	"github.com/agentrun/agentrun/internal/testkit"
	"github.com/agentrun/agentrun/internal/testkit/standalone"
	"github.com/agentrun/agentrun/model"
	"github.com/agentrun/agentrun/tools"
)

// echo is a read-only tool of a worker's own.
type echo struct{ prefix string }

func (echo) Spec() api.ToolSpec {
	return api.ToolSpec{Name: "echo", Description: "Echo.", Parameters: json.RawMessage(`{"type":"object"}`)}
}

func (e echo) Execute(context.Context, tools.Call) (api.ToolOutput, error) {
	return api.ToolOutput{Content: json.RawMessage(`"` + e.prefix + `"`)}, nil
}

func echoExtension(prefix string) agents.Extension {
	return agents.Extension{
		Tools:  []agents.ExtraTool{{Tool: echo{prefix: prefix}, Gate: tools.NeverAsk}},
		Agents: []tools.Agent{{Name: "echoer", SystemPrompt: "Echo.", Task: "Echo", Tools: []tools.AgentTool{{Name: "echo"}}}},
	}
}

// ownWorker is a worker of its own: one setting, read by Extend.
func ownWorker(env map[string]string, stdout, stderr *bytes.Buffer, args ...string) Options {
	return Options{
		Program:  "echoworker",
		Settings: []Setting{{Name: "ECHO_PREFIX", Description: "what echo says", Required: true}},
		Extend: func(h Host) ([]agents.Extension, error) {
			if h.GitHub != nil {
				return nil, errors.New("this worker takes no GitHub")
			}
			if p := h.Getenv("ECHO_PREFIX"); p != "hello" {
				return nil, errors.New("ECHO_PREFIX: only hello is known, not " + p)
			}
			return []agents.Extension{echoExtension(h.Getenv("ECHO_PREFIX"))}, nil
		},
		Args: args, Getenv: standalone.Getenv(env), Stdout: stdout, Stderr: stderr,
	}
}

func TestAWorkerOfItsOwnListsItsSettingsAfterTheWorkersUnderHelp(t *testing.T) {
	var stdout, stderr bytes.Buffer

	err := Run(t.Context(), ownWorker(nil, &stdout, &stderr, "--help"))

	require.NoError(t, err)
	help := stdout.String()
	require.True(t, strings.HasPrefix(help, "echoworker reads these environment variables"), help)
	require.Contains(t, help, "TEMPORAL_TLS_CLIENT_CERT_PATH", "the worker's own settings are there")
	require.Contains(t, help, "AGENTRUN_PAYLOAD_KEYS")
	require.Regexp(t, `ECHO_PREFIX\s+\[required\]\s+what echo says`, help)
	require.Greater(t, strings.Index(help, "ECHO_PREFIX"), strings.Index(help, "AGENT_STOP_TIMEOUT"), "its own come after the worker's")
}

func TestAWorkerOfItsOwnRefusesAMissingOrBadSettingOfItsOwnWithExitCode2(t *testing.T) {
	for name, tc := range map[string]struct {
		env   map[string]string
		named string
	}{
		"missing":        {map[string]string{}, "ECHO_PREFIX not set: echoworker needs it"},
		"refused":        {map[string]string{"ECHO_PREFIX": "bye"}, "echoworker's own tools: ECHO_PREFIX: only hello is known, not bye"},
		"worker setting": {map[string]string{"ECHO_PREFIX": "hello", "LOG_FORMAT": "xml"}, "LOG_FORMAT"},
	} {
		t.Run(name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			tc.env["TEMPORAL_ADDRESS"] = testkit.FreeAddress(t)

			err := Run(t.Context(), ownWorker(tc.env, &stdout, &stderr))

			require.Equal(t, 2, ExitCode(err))
			require.ErrorContains(t, err, tc.named)
			require.NotContains(t, stderr.String(), "cannot reach Temporal", "nothing connects with a bad setting")
		})
	}
}

func TestAWorkerOfItsOwnWithoutGitHubServesItsAgentAloneAndAnUnknownArgumentIsRefused(t *testing.T) {
	var stdout, stderr bytes.Buffer
	env := map[string]string{"ECHO_PREFIX": "hello", "TEMPORAL_ADDRESS": testkit.FreeAddress(t)}

	err := Run(t.Context(), ownWorker(env, &stdout, &stderr))

	require.ErrorContains(t, err, "cannot reach Temporal", "it gets as far as Temporal, which nothing serves here")
	require.Equal(t, 1, ExitCode(err))
	require.Contains(t, stderr.String(), "no GitHub variable is set: serving only agents that use no GitHub tool")

	err = Run(t.Context(), ownWorker(env, &stdout, &stderr, "serve"))
	require.Equal(t, 2, ExitCode(err))
	require.ErrorContains(t, err, `echoworker takes no arguments but replay-check and --help (have ["serve"])`)
}

func TestTheWorkersRegistryIsTheBuiltInOneWithTheExtensionsAndItsModelWrapsTheProviders(t *testing.T) {
	var wrapped bool
	opts := Options{Extensions: []agents.Extension{echoExtension("hi")}}
	opts.Model = func(provider model.Model) model.Model { wrapped = provider != nil; return provider }
	table, _ := opts.settings()
	cfg, acts, err := prepare(Options{Getenv: standalone.Getenv(map[string]string{"GITHUB_BOT_LOGIN": "agentrun[bot]"}), Model: opts.Model}, table)
	require.NoError(t, err)
	require.True(t, wrapped, "Model is given MODEL_PROVIDER's model")
	exts, err := opts.extensions(ownValues{}, acts.GitHub)
	require.NoError(t, err)
	set, err := wiring.LoadTools(t.Context(), cfg, acts, nil, exts...)
	require.NoError(t, err)
	require.Equal(t, "pr-review,triage,echoer", agentNames(acts))
	require.NoError(t, set.Close())
}
