package agentworker

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/github"
	"github.com/agentrun/agentrun/internal/telemetry"
	"github.com/agentrun/agentrun/internal/temporalclient"
	"github.com/agentrun/agentrun/internal/testkit/standalone"
)

func TestConfigFromEnvWithNothingSetUsesDefaults(t *testing.T) {
	cfg, err := ConfigFromEnv(standalone.Getenv(nil))

	require.NoError(t, err)
	require.Equal(t, Config{
		Temporal:        temporalclient.Config{Address: "localhost:7233", Namespace: "default"},
		TaskQueue:       "agent-runs",
		ModelProvider:   "offline",
		LogFormat:       "text",
		StopTimeout:     30 * time.Second,
		StickyCacheSize: DefaultStickyCacheSize,
		Telemetry:       telemetry.Config{ServiceName: ServiceName},
	}, cfg)
}

func TestConfigFromEnvTakesEveryVariable(t *testing.T) {
	cfg, err := ConfigFromEnv(standalone.Getenv(map[string]string{
		"TEMPORAL_ADDRESS":            "temporal:7233",
		"TEMPORAL_NAMESPACE":          "agents",
		"AGENT_TASK_QUEUE":            "reviews",
		"GITHUB_TOKEN":                "ghp_abc123",
		"GITHUB_API_URL":              "http://127.0.0.1:8090/api/v3/",
		"GITHUB_BOT_LOGIN":            "agentrun[bot]",
		"AGENT_ALLOWED_REPOS":         " Acme/Widgets ,acme/gadgets",
		"MODEL_PROVIDER":              "offline",
		"LOG_FORMAT":                  "json",
		"AGENT_STOP_TIMEOUT":          "2m",
		"METRICS_ADDR":                ":9464",
		"OTEL_EXPORTER_OTLP_ENDPOINT": "http://otel-collector:4317",
		"OTEL_SERVICE_NAME":           "reviewer",
		"AGENT_VERSIONING":            "pinned",
		"AGENT_DEPLOYMENT_NAME":       "reviews",
		"AGENT_BUILD_ID":              "v1.4.2",
		"AGENT_PROMOTE":               "on-start",
		"AGENT_STICKY_CACHE_SIZE":     "500",
		"AGENTRUN_RUN_PAGE_URL":       "https://agentrun.example.com/",
	}))

	require.NoError(t, err)
	require.Equal(t, Config{
		Temporal:        temporalclient.Config{Address: "temporal:7233", Namespace: "agents"},
		TaskQueue:       "reviews",
		GitHub:          github.Credentials{Token: "ghp_abc123", APIURL: "http://127.0.0.1:8090/api/v3/"},
		GitHubBotLogin:  "agentrun[bot]",
		AllowedRepos:    github.RepoAllowlist{"acme/widgets", "acme/gadgets"},
		ModelProvider:   "offline",
		LogFormat:       "json",
		StopTimeout:     2 * time.Minute,
		StickyCacheSize: 500,
		RunPageURL:      "https://agentrun.example.com",
		Telemetry:       telemetry.Config{MetricsAddr: ":9464", OTLPEndpoint: "http://otel-collector:4317", ServiceName: "reviewer"},
		Deployment:      Deployment{Pinned: true, Name: "reviews", BuildID: "v1.4.2", PromoteOnStart: true},
	}, cfg)
}

func TestConfigFromEnvPinnedWithoutABuildIDTakesTheBinarysOwn(t *testing.T) {
	cfg, err := ConfigFromEnv(standalone.Getenv(map[string]string{"AGENT_VERSIONING": "pinned"}))

	require.NoError(t, err)
	buildID, err := BuildID()
	require.NoError(t, err)
	require.NotEmpty(t, buildID)
	require.Equal(t, Deployment{Pinned: true, Name: "agentrun", BuildID: buildID}, cfg.Deployment)
	require.Equal(t, WorkerOptions{TaskQueue: "agent-runs", StopTimeout: DefaultStopTimeout, Deployment: cfg.Deployment, StickyCacheSize: DefaultStickyCacheSize}, cfg.WorkerOptions())
}

func TestConfigFromEnvWithVersioningOffIsUnversioned(t *testing.T) {
	cfg, err := ConfigFromEnv(standalone.Getenv(map[string]string{"AGENT_VERSIONING": "off", "AGENT_BUILD_ID": "v1.4.2"}))

	require.NoError(t, err)
	require.Equal(t, Deployment{}, cfg.Deployment)
	require.Equal(t, WorkerOptions{TaskQueue: "agent-runs", StopTimeout: DefaultStopTimeout, StickyCacheSize: DefaultStickyCacheSize}, cfg.WorkerOptions())
}

func TestConfigFromEnvRejectsEachBadValueNamingItsVariable(t *testing.T) {
	cases := []struct {
		variable, value string
	}{
		{"TEMPORAL_ADDRESS", "localhost"},
		{"TEMPORAL_ADDRESS", "localhost:99999"},
		{"AGENT_TASK_QUEUE", "agent runs"},
		{"GITHUB_TOKEN", "ghp_abc123\n"},
		{"GITHUB_API_URL", "ftp://github.example.com"},
		{"GITHUB_API_URL", "api.github.com"},
		{"GITHUB_API_URL", "http://"},
		{"GITHUB_API_URL", "http://bad host/"},
		{"GITHUB_API_URL", "https://bot:s3cret@ghe.example.com/api/v3/"},
		{"MODEL_PROVIDER", "no-such-model"},
		{"LOG_FORMAT", "xml"},
		{"GITHUB_BOT_LOGIN", "agentrun bot"},
		{"GITHUB_BOT_LOGIN", "@agentrun"},
		{"GITHUB_BOT_LOGIN", "agentrun[bot]\n"},
		{"GITHUB_BOT_LOGIN", "-agentrun"},
		{"GITHUB_BOT_LOGIN", strings.Repeat("a", 40)},
		{"AGENT_ALLOWED_REPOS", "acme"},
		{"AGENT_ALLOWED_REPOS", "acme/widgets,"},
		{"AGENT_ALLOWED_REPOS", "acme/*"},
		{"AGENT_ALLOWED_REPOS", "https://github.com/acme/widgets"},
		{"AGENT_ALLOWED_REPOS", " "},
		{"AGENT_STICKY_CACHE_SIZE", "0"},
		{"AGENT_STICKY_CACHE_SIZE", "-5"},
		{"AGENT_STICKY_CACHE_SIZE", "2k"},
		{"AGENTRUN_RUN_PAGE_URL", "agentrun.example.com"},
		{"AGENTRUN_RUN_PAGE_URL", "ftp://agentrun.example.com"},
		{"AGENTRUN_RUN_PAGE_URL", "https://agentrun.example.com/?x=1"},
		{"AGENT_STOP_TIMEOUT", "30"},
		{"AGENT_STOP_TIMEOUT", "soon"},
		{"AGENT_STOP_TIMEOUT", "-1s"},
		{"AGENT_VERSIONING", "on"},
		{"AGENT_VERSIONING", "Pinned"},
		{"AGENT_PROMOTE", "always"},
		{"AGENT_PROMOTE", "on_start"},
		{"AGENT_DEPLOYMENT_NAME", "agent run"},
		{"AGENT_DEPLOYMENT_NAME", "agentrun.prod"},
		{"AGENT_DEPLOYMENT_NAME", strings.Repeat("d", 256)},
		{"AGENT_BUILD_ID", "v1.4.2\n"},
		{"AGENT_BUILD_ID", "build 7"},
		{"AGENT_BUILD_ID", strings.Repeat("b", 256)},
	}
	for _, tc := range cases {
		t.Run(tc.variable+"="+tc.value, func(t *testing.T) {
			_, err := ConfigFromEnv(standalone.Getenv(map[string]string{tc.variable: tc.value}))

			require.Error(t, err)
			require.Contains(t, err.Error(), tc.variable)
			require.NotContains(t, err.Error(), "s3cret")
		})
	}
}
