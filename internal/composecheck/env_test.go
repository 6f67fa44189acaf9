package composecheck

import (
	"maps"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/agentworker"
	"github.com/agentrun/agentrun/internal/approvalsrv"
	"github.com/agentrun/agentrun/internal/config"
	"github.com/agentrun/agentrun/internal/temporalclient"
	"github.com/agentrun/agentrun/model"
)

// TestEveryProgramServiceSetsOnlyVariablesOfItsTable compares each built
// service's environment with its program's settings table: a variable set
// but not in the table is a typo or a leftover that makes the file lie, and
// a required one left out stops the program.
func TestEveryProgramServiceSetsOnlyVariablesOfItsTable(t *testing.T) {
	require.NoError(t, CheckEnvironments(mustLoadCompose(t, nil), Tables()))
}

func TestTheCheckNamesATypoedVariableAndAMissingRequiredOne(t *testing.T) {
	compose := readCompose(t)
	typo := strings.Replace(compose, "      GITHUB_BOT_LOGIN: ${GITHUB_BOT_LOGIN:-}", "      GITHUB_BOT_LOGNI: ${GITHUB_BOT_LOGIN:-}", 1)
	require.NotEqual(t, compose, typo, "the worker sets GITHUB_BOT_LOGIN")
	missing := regexp.MustCompile(`(?m)^      APPROVAL_SECRET: .*\n`).ReplaceAllString(compose, "")
	require.NotEqual(t, compose, missing, "the approval server sets APPROVAL_SECRET")

	err := CheckEnvironments(mustLoadComposeFile(t, writeCompose(t, typo), nil), Tables())
	require.ErrorContains(t, err, "service worker sets GITHUB_BOT_LOGNI, which worker does not read")
	err = CheckEnvironments(mustLoadComposeFile(t, writeCompose(t, missing), nil), Tables())
	require.ErrorContains(t, err, "service approval does not set APPROVAL_SECRET, which approval requires")
}

func TestTheCheckRefusesAServiceWhoseProgramHasNoTable(t *testing.T) {
	tables := Tables()
	delete(tables, "ghsandbox")

	err := CheckEnvironments(mustLoadCompose(t, nil), tables)

	require.ErrorContains(t, err, "service ghsandbox: runs ghsandbox, which has no settings table here")
}

// The variables compose refuses to start without are exactly the required
// settings of the programs it runs, so that adding one to a table without
// adding it here fails.
func TestComposeRequiresExactlyTheRequiredSettings(t *testing.T) {
	var required []string
	for _, vars := range Tables() {
		for _, v := range vars {
			if v.Required && v.Default == "" {
				required = append(required, v.Name)
			}
		}
	}
	require.ElementsMatch(t, slices.Collect(maps.Keys(requiredEnv)), slices.Compact(slices.Sorted(slices.Values(required))))
}

func TestComposeEnvironmentPassesTheWorkersOwnValidation(t *testing.T) {
	worker := service(t, mustLoadCompose(t, nil), serviceWorker)

	cfg, err := agentworker.ConfigFromEnv(getenv(worker))

	require.NoError(t, err)
	require.Equal(t, api.DefaultTaskQueue, cfg.TaskQueue)
	require.Equal(t, agentworker.DefaultModelProvider, cfg.ModelProvider, "no model account needed by default")
	require.Equal(t, agentworker.LogJSON, cfg.LogFormat, "containers log for a pipeline")
	_, err = agentworker.NewActivities(cfg)
	require.NoError(t, err)
}

func TestComposePassesTheOpenAISettingsToTheWorker(t *testing.T) {
	worker := service(t, mustLoadCompose(t, map[string]string{
		"MODEL_PROVIDER":  model.ProviderOpenAI,
		"OPENAI_BASE_URL": "http://ollama:11434/v1",
		"OPENAI_API_KEY":  "compose-test-key",
		"OPENAI_MODEL":    "llama3.1",
		"OPENAI_ORG":      "org-compose",
	}), serviceWorker)

	cfg, err := agentworker.ConfigFromEnv(getenv(worker))
	require.NoError(t, err)
	require.Equal(t, model.ProviderOpenAI, cfg.ModelProvider)
	require.Equal(t, "http://ollama:11434/v1", cfg.OpenAI.BaseURL)
	require.Equal(t, "compose-test-key", cfg.OpenAI.APIKey)
	require.Equal(t, "llama3.1", cfg.OpenAI.Model)
	require.Equal(t, "org-compose", cfg.OpenAI.Organization)
	_, err = agentworker.NewActivities(cfg)
	require.NoError(t, err)
}

func TestComposeRunsTheApprovalServerWithItsSecretsNotInDevMode(t *testing.T) {
	approval := service(t, mustLoadCompose(t, nil), serviceApproval)

	cfg, err := approvalsrv.ConfigFromEnv(getenv(approval))

	require.NoError(t, err)
	require.False(t, cfg.InsecureDev)
	require.Empty(t, cfg.InsecureWarnings())
	require.Equal(t, requiredEnv["APPROVAL_SECRET"], cfg.Secret)
	require.Equal(t, requiredEnv["GITHUB_WEBHOOK_SECRET"], cfg.WebhookSecret)
	require.NotEmpty(t, cfg.WebhookAddr, "the webhook has a listener of its own")
	_, err = temporalclient.ConfigFromEnv(getenv(approval))
	require.NoError(t, err)
}

func TestComposePassesTheLoginProxySettingsToTheApprovalServer(t *testing.T) {
	approval := service(t, mustLoadCompose(t, map[string]string{
		"APPROVAL_IDENTITY_HEADER": "X-Forwarded-User",
		"APPROVAL_TRUSTED_PROXIES": "172.16.0.0/12",
	}), serviceApproval)

	cfg, err := approvalsrv.ConfigFromEnv(getenv(approval))

	require.NoError(t, err)
	require.Equal(t, "X-Forwarded-User", cfg.IdentityHeader)
	require.Equal(t, []netip.Prefix{netip.MustParsePrefix("172.16.0.0/12")}, cfg.TrustedProxies)
}

func TestComposeWithAnIdentityHeaderButNoTrustedProxyDoesNotStart(t *testing.T) {
	approval := service(t, mustLoadCompose(t, map[string]string{"APPROVAL_IDENTITY_HEADER": "X-Forwarded-User"}), serviceApproval)

	_, err := approvalsrv.ConfigFromEnv(getenv(approval))

	require.ErrorContains(t, err, "APPROVAL_TRUSTED_PROXIES")
}

func TestTemporalClientsReachTheTemporalServiceInOneNamespace(t *testing.T) {
	project := mustLoadCompose(t, map[string]string{"TEMPORAL_NAMESPACE": "agents"})

	for _, name := range []string{serviceWorker, serviceApproval, serviceTemporalSetup, serviceTemporalUI} {
		host, _, err := net.SplitHostPort(environment(service(t, project, name))["TEMPORAL_ADDRESS"])
		require.NoError(t, err, "service %s", name)
		require.Equal(t, serviceTemporal, host, "service %s", name)
	}
	namespaces := []string{
		environment(service(t, project, serviceTemporal))["DEFAULT_NAMESPACE"],
		environment(service(t, project, serviceTemporalSetup))["TEMPORAL_NAMESPACE"],
		environment(service(t, project, serviceTemporalUI))["TEMPORAL_DEFAULT_NAMESPACE"],
		environment(service(t, project, serviceWorker))["TEMPORAL_NAMESPACE"],
		environment(service(t, project, serviceApproval))["TEMPORAL_NAMESPACE"],
	}
	require.Equal(t, []string{"agents"}, slices.Compact(namespaces),
		"auto-setup creates, temporal-setup registers in, and every client uses the same namespace")
}

func TestGitHubSettingsReachBothTheWorkerAndTheApprovalServer(t *testing.T) {
	project := mustLoadCompose(t, map[string]string{
		"GITHUB_API_URL": "http://ghsandbox:9090/",
		"GITHUB_TOKEN":   "ghp_compose",
	})

	for _, name := range []string{serviceWorker, serviceApproval} {
		env := environment(service(t, project, name))
		require.Equal(t, "http://ghsandbox:9090/", env["GITHUB_API_URL"], "service %s", name)
		require.Equal(t, "ghp_compose", env["GITHUB_TOKEN"], "service %s", name)
	}
	sandboxPort := listenAddresses(t, service(t, project, serviceSandbox))["SANDBOX_ADDR"].port
	require.Equal(t, 9090, sandboxPort, "the documented GITHUB_API_URL reaches the sandbox")
}

// The README's configuration table says which program reads each variable;
// it must agree with the tables (the starter's is checked in its package).
func TestTheREADMEDocumentsEverySettingOfEveryProgram(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join(repoModule(t).Root, "README.md"))
	require.NoError(t, err)
	documented := config.DocumentedPrograms(string(readme), "## Configuration")

	for program, vars := range Tables() {
		missing, stale := config.Undocumented(program, vars, documented)
		require.Empty(t, missing, "the README's configuration table does not list these as read by %s", program)
		require.Empty(t, stale, "the README's configuration table lists these as read by %s, which its table does not", program)
	}
}
