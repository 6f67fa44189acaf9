package agentworker

import (
	"bytes"
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/api/serviceerror"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/ghsandbox"
	"github.com/agentrun/agentrun/internal/testkit"
	"github.com/agentrun/agentrun/internal/testkit/standalone"
	"github.com/agentrun/agentrun/runclient"
)

func TestWorkerOnAFreshDevServerAddsTheSearchAttributesAndARunThenStartsAndLists(t *testing.T) {
	testkit.NeedsDevServer(t)
	server := testkit.StartServer(t, testkit.ServerOptions{NoSearchAttributes: true})
	logs := testkit.NewTailBuffer(1 << 20)
	worker := testkit.RunInBackground(t, func(ctx context.Context) error {
		return run(ctx, standalone.Getenv(map[string]string{
			"TEMPORAL_ADDRESS": server.Address(),
			"AGENT_TASK_QUEUE": "worker-search-attributes",
			"GITHUB_API_URL":   sandboxURL(t, ghsandbox.New(ghsandbox.DefaultFixture())),
		}), logs)
	})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	require.Eventually(t, func() bool {
		resp, err := server.Client().DescribeTaskQueue(ctx, "worker-search-attributes", enumspb.TASK_QUEUE_TYPE_WORKFLOW)
		return err == nil && len(resp.GetPollers()) > 0
	}, time.Minute, 50*time.Millisecond, "the worker never polled its task queue:\n%s", logs.String())
	listed, err := server.Client().OperatorService().ListSearchAttributes(ctx, &operatorservice.ListSearchAttributesRequest{Namespace: "default"})
	require.NoError(t, err)
	for name, typ := range runclient.RequiredSearchAttributes() {
		require.Equal(t, typ, listed.GetCustomAttributes()[name], "search attribute %s", name)
	}
	require.Contains(t, logs.String(), `msg="added the search attributes the namespace lacked" namespace=default added=AgentRunActionIds,AgentRunAgent,AgentRunStatus,ConversationId`)

	rc := runclient.New(server.Client(), runclient.Options{Address: server.Address()})
	started, err := rc.Start(ctx, runclient.StartRequest{RunID: "run-on-a-fresh-server", TaskQueue: "worker-search-attributes", Input: api.RunInput{
		Repo: "acme/widgets", PullNumber: 1, Goal: "review", UserID: "carol",
	}})
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		runs, err := rc.List(ctx, runclient.ListFilter{Agent: started.Agent})
		return err == nil && len(runs) == 1 && runs[0].RunID == started.RunID
	}, time.Minute, 50*time.Millisecond, "the run is never listed")
	worker.Stop(t, "the worker")
}

func TestWorkerWhoseServerRefusesToAddSearchAttributesExitsWith2NamingTheCommand(t *testing.T) {
	testkit.NeedsDevServer(t)
	server := testkit.StartServer(t, testkit.ServerOptions{NoSearchAttributes: true})
	refusing := testkit.RefusingToAddSearchAttributes(server.Client(), serviceerror.NewPermissionDenied("Request unauthorized.", ""))
	var stderr bytes.Buffer

	err := setUpSearchAttributes(context.Background(), refusing, server.Config(), slog.New(slog.NewTextHandler(&stderr, nil)))

	require.Equal(t, 2, exitCode(err, &stderr))
	require.Contains(t, stderr.String(), "lacks the search attributes AgentRunActionIds, AgentRunAgent, AgentRunStatus, ConversationId")
	require.Contains(t, stderr.String(), "add them with: "+runclient.AddSearchAttributesCommand(server.Address(), "default"))
}
