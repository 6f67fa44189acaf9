package agentworker

import (
	"bytes"
	"context"
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"

	"github.com/agentrun/agentrun/internal/ghsandbox"
	"github.com/agentrun/agentrun/internal/testkit"
	"github.com/agentrun/agentrun/internal/testkit/standalone"
)

// run is the worker command as worker/ runs it: Run with no extension, its
// log on logOutput.
func run(ctx context.Context, getenv func(string) string, logOutput io.Writer) error {
	return Run(ctx, Options{Getenv: getenv, Stdout: io.Discard, Stderr: logOutput})
}

// exitCode is the code Main exits with, after printing err as Main does.
func exitCode(err error, stderr io.Writer) int { return report(DefaultProgram, err, stderr) }

func TestWorkerRefusesBadConfigWithExitCode2NamingTheVariable(t *testing.T) {
	for _, tc := range []struct {
		vars  map[string]string
		named string
	}{
		{map[string]string{"TEMPORAL_ADDRESS": "no-port"}, "TEMPORAL_ADDRESS"},
		{map[string]string{"GITHUB_API_URL": "not a url"}, "GITHUB_API_URL"},
		{map[string]string{"MODEL_PROVIDER": "no-such-model"}, "MODEL_PROVIDER"},
		{map[string]string{"MODEL_PROVIDER": "openai"}, "OPENAI_API_KEY"},
		{map[string]string{"LOG_FORMAT": "xml"}, "LOG_FORMAT"},
		{map[string]string{"AGENT_ALLOWED_REPOS": "acme/widgets,acme"}, "AGENT_ALLOWED_REPOS"},
		{map[string]string{"GITHUB_BOT_LOGIN": "agent bot"}, "GITHUB_BOT_LOGIN"},
		{map[string]string{"AGENT_STOP_TIMEOUT": "soon"}, "AGENT_STOP_TIMEOUT"},
		{map[string]string{"AGENT_VERSIONING": "on"}, "AGENT_VERSIONING"},
		{map[string]string{"AGENT_DEPLOYMENT_NAME": "agentrun.prod"}, "AGENT_DEPLOYMENT_NAME"},
		{map[string]string{"AGENT_BUILD_ID": "build 7"}, "AGENT_BUILD_ID"},
		{map[string]string{"TEMPORAL_TLS_CLIENT_CERT_PATH": "/no/such/cert.pem"}, "TEMPORAL_TLS_CLIENT_CERT_PATH"},
		{map[string]string{"TEMPORAL_PROFILE": "prod", "TEMPORAL_CONFIG_FILE": "/dev/null"}, "TEMPORAL_PROFILE"},
		{map[string]string{"AGENTRUN_PAYLOAD_KEYS": "k1"}, "AGENTRUN_PAYLOAD_KEYS"},
		{map[string]string{"METRICS_ADDR": "localhost:http-alt"}, "METRICS_ADDR"},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "collector:4317"}, "OTEL_EXPORTER_OTLP_ENDPOINT"},
	} {
		t.Run(tc.named, func(t *testing.T) {
			var stderr bytes.Buffer

			err := run(context.Background(), standalone.Getenv(tc.vars), &stderr)

			require.Equal(t, 2, exitCode(err, &stderr))
			require.Contains(t, stderr.String(), tc.named)
		})
	}
}

func TestWorkerWithUnreachableTemporalFailsNamingTheAddress(t *testing.T) {
	addr := unreachableTemporal(t)
	var stderr bytes.Buffer

	err := run(context.Background(), standalone.Getenv(map[string]string{"TEMPORAL_ADDRESS": addr, "GITHUB_BOT_LOGIN": "agentrun[bot]"}), &stderr)

	require.Equal(t, 1, exitCode(err, &stderr))
	require.Contains(t, stderr.String(), "cannot reach Temporal at "+addr)
}

// unreachableTemporal is an address nothing listens on, so that run stops
// right after the GitHub identity step these tests look at.
func unreachableTemporal(t *testing.T) string {
	t.Helper()
	return testkit.FreeAddress(t)
}

func sandboxURL(t *testing.T, sb *ghsandbox.Server) string {
	t.Helper()
	srv := httptest.NewServer(sb)
	t.Cleanup(srv.Close)
	return srv.URL + "/"
}

func TestWorkerLearnsItsGitHubLoginFromGetUserAndLogsTheTarget(t *testing.T) {
	sb := ghsandbox.New(ghsandbox.DefaultFixture())
	api := sandboxURL(t, sb)
	var logs bytes.Buffer

	_ = run(context.Background(), standalone.Getenv(map[string]string{
		"TEMPORAL_ADDRESS": unreachableTemporal(t), "GITHUB_API_URL": api, "GITHUB_TOKEN": "t",
	}), &logs)

	require.Len(t, sb.Requests(), 1)
	require.Equal(t, ghsandbox.OpGetUser, sb.Requests()[0].Op)
	require.Contains(t, logs.String(), `msg="GitHub target" githubApiUrl=`+api+` githubLogin=agentrun[bot] loginFrom="GET /user" allowedRepos=any`)
}

func TestWorkerTakesGitHubBotLoginWithoutAskingGitHub(t *testing.T) {
	sb := ghsandbox.New(ghsandbox.DefaultFixture())
	var logs bytes.Buffer

	_ = run(context.Background(), standalone.Getenv(map[string]string{
		"TEMPORAL_ADDRESS": unreachableTemporal(t), "GITHUB_API_URL": sandboxURL(t, sb), "GITHUB_TOKEN": "t",
		"GITHUB_BOT_LOGIN": "reviewer-app[bot]", "AGENT_ALLOWED_REPOS": "Acme/Widgets, acme/gadgets",
	}), &logs)

	require.Empty(t, sb.Requests())
	require.Contains(t, logs.String(), `githubLogin=reviewer-app[bot] loginFrom=GITHUB_BOT_LOGIN allowedRepos=acme/widgets,acme/gadgets`)
}

func TestWorkerWhoseTokenCannotReadItsUserRefusesToStartNamingGitHubBotLogin(t *testing.T) {
	sb := ghsandbox.New(ghsandbox.DefaultFixture())
	require.NoError(t, sb.AddFault(ghsandbox.Fault{Op: ghsandbox.OpGetUser, Mode: ghsandbox.ModeStatus, Status: 403}))
	var stderr bytes.Buffer

	err := run(context.Background(), standalone.Getenv(map[string]string{
		"TEMPORAL_ADDRESS": unreachableTemporal(t), "GITHUB_API_URL": sandboxURL(t, sb), "GITHUB_TOKEN": "app-installation-token",
	}), &stderr)

	require.Equal(t, 2, exitCode(err, &stderr))
	require.Contains(t, stderr.String(), "GITHUB_BOT_LOGIN")
	require.Contains(t, stderr.String(), "403")
	require.NotContains(t, stderr.String(), "cannot reach Temporal", "nothing starts without an identity")
}

func TestWorkerPollsItsTaskQueueAndStopsCleanlyWhenCancelled(t *testing.T) {
	server := testkit.StartServer(t, testkit.ServerOptions{})
	// The worker writes its log while the test reads it.
	logs := testkit.NewTailBuffer(1 << 20)
	sb := ghsandbox.New(ghsandbox.DefaultFixture())
	api := sandboxURL(t, sb)
	worker := testkit.RunInBackground(t, func(ctx context.Context) error {
		return run(ctx, standalone.Getenv(map[string]string{
			"TEMPORAL_ADDRESS":   server.Address(),
			"AGENT_TASK_QUEUE":   "worker-main-test",
			"GITHUB_API_URL":     api,
			"AGENT_STOP_TIMEOUT": "45s",
			"AGENT_VERSIONING":   "pinned",
			"AGENT_BUILD_ID":     "main-test",
		}), logs)
	})

	require.Eventually(t, func() bool {
		resp, err := server.Client().DescribeTaskQueue(context.Background(), "worker-main-test", enumspb.TASK_QUEUE_TYPE_WORKFLOW)
		return err == nil && len(resp.GetPollers()) > 0
	}, 30*time.Second, 50*time.Millisecond, "the worker never polled its task queue")
	require.Eventually(t, func() bool {
		desc, err := server.Client().WorkerDeploymentClient().GetHandle("agentrun").Describe(context.Background(), client.WorkerDeploymentDescribeOptions{})
		current := desc.Info.RoutingConfig.CurrentVersion
		return err == nil && current != nil && current.BuildID == "main-test"
	}, 30*time.Second, 50*time.Millisecond, "the first version of a new deployment never made itself current")
	// The server shows the version current before the worker's call to make
	// it so has returned; stopping before then would cut the log short.
	promoted := `msg="this build is the current version: the deployment had none" deploymentName=agentrun buildId=main-test`
	require.Eventually(t, func() bool { return strings.Contains(logs.String(), promoted) }, 30*time.Second, 50*time.Millisecond,
		"the worker never said it made its build current")
	worker.Stop(t, "the worker")
	require.Contains(t, logs.String(), `msg="stopping: finishing the tasks in hand" stopTimeout=45s`,
		"an idle worker stops at once; the timeout only bounds activities in flight")
	require.Contains(t, logs.String(), `versioning=pinned deploymentName=agentrun buildId=main-test`)
	require.Contains(t, logs.String(), promoted)
}
