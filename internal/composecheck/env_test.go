package composecheck

import (
	"net"
	"net/netip"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/agentworker"
	"github.com/agentrun/agentrun/internal/approvalsrv"
	"github.com/agentrun/agentrun/internal/temporalclient"
)

func TestComposeEnvironmentPassesTheWorkersOwnValidation(t *testing.T) {
	worker := service(t, mustLoadCompose(t, nil), serviceWorker)

	cfg, err := agentworker.ConfigFromEnv(getenv(worker))

	require.NoError(t, err)
	require.Equal(t, api.DefaultTaskQueue, cfg.TaskQueue)
	require.Equal(t, agentworker.DefaultModelProvider, cfg.ModelProvider, "no model account needed by default")
	require.Equal(t, agentworker.LogJSON, cfg.LogFormat, "containers log for a pipeline")
	require.True(t, cfg.Deployment.Pinned, "compose is production-shaped: runs stay on the build that started them")
	require.True(t, cfg.Deployment.PromoteOnStart, "`up --build` makes the new build current after its replay check")
	_, err = agentworker.NewActivities(cfg)
	require.NoError(t, err)
}

func TestComposePassesTheOpenAISettingsToTheWorker(t *testing.T) {
	worker := service(t, mustLoadCompose(t, map[string]string{
		"MODEL_PROVIDER":  agentworker.ProviderOpenAI,
		"OPENAI_BASE_URL": "http://ollama:11434/v1",
		"OPENAI_API_KEY":  "compose-test-key",
		"OPENAI_MODEL":    "llama3.1",
		"OPENAI_ORG":      "org-compose",
	}), serviceWorker)

	cfg, err := agentworker.ConfigFromEnv(getenv(worker))
	require.NoError(t, err)
	require.Equal(t, agentworker.ProviderOpenAI, cfg.ModelProvider)
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
