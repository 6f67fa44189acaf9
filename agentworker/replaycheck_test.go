package agentworker

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	sdkworker "go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/ghsandbox"
	"github.com/agentrun/agentrun/internal/testkit"
	"github.com/agentrun/agentrun/internal/testkit/standalone"
	"github.com/agentrun/agentrun/runclient"
)

// otherShape stands for a build whose commands changed without a GetVersion
// gate: registered under AgentRun's name, its first command is a timer.
func otherShape(ctx workflow.Context, _ api.RunInput) error {
	return workflow.Sleep(ctx, time.Hour)
}

// checkResult is what one `worker replay-check` printed and its exit code.
type checkResult struct {
	code           int
	stdout, stderr string
}

func runReplayCheck(t *testing.T, env map[string]string, args ...string) checkResult {
	t.Helper()
	var stdout, stderr bytes.Buffer
	err := Run(context.Background(), Options{Args: append([]string{ReplayCheckCommand}, args...), Getenv: standalone.Getenv(env), Stdout: &stdout, Stderr: &stderr})
	code := exitCode(err, &stderr)
	return checkResult{code: code, stdout: stdout.String(), stderr: stderr.String()}
}

func TestReplayCheckExitsZeroOverRunsOfThisCodeAndOneNamingARunOfAnotherShape(t *testing.T) {
	testkit.NeedsDevServer(t)
	const queue = "worker-replay-check"
	server := testkit.StartServer(t, testkit.ServerOptions{})
	env := map[string]string{
		"TEMPORAL_ADDRESS": server.Address(), "AGENT_TASK_QUEUE": queue,
		"GITHUB_API_URL": sandboxURL(t, ghsandbox.New(ghsandbox.DefaultFixture())),
	}
	logs := testkit.NewTailBuffer(1 << 20)
	agent := testkit.RunInBackground(t, func(ctx context.Context) error { return run(ctx, standalone.Getenv(env), logs) })
	ctx, cancel := context.WithTimeout(context.Background(), testkit.RunTimeout)
	defer cancel()
	rc := runclient.New(server.Client(), runclient.Options{Address: server.Address()})
	started, err := rc.Start(ctx, runclient.StartRequest{RunID: "run-of-this-code", TaskQueue: queue, Input: api.RunInput{
		Repo: "acme/widgets", PullNumber: 1, Goal: "review", UserID: "carol",
	}})
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		snap, err := rc.Snapshot(ctx, started.RunID)
		return err == nil && snap.Run.Status == api.RunWaitingForUser
	}, testkit.RunTimeout, 50*time.Millisecond, "the run never waited for approval:\n%s", logs.String())
	var passed checkResult
	require.Eventually(t, func() bool {
		passed = runReplayCheck(t, env)
		return passed.code == 0 && strings.Contains(passed.stdout, "replay check: 1 sampled")
	}, testkit.RunTimeout, 100*time.Millisecond, "the check never passed over the waiting run: %+v", passed)
	require.Equal(t, "replay check: 1 sampled open runs of task queue "+queue+" replay on this build\n", passed.stdout)
	agent.Stop(t, "the worker")

	// A run of another shape, left open by a worker of other code.
	other := sdkworker.New(server.Client(), queue, sdkworker.Options{})
	other.RegisterWorkflowWithOptions(otherShape, workflow.RegisterOptions{Name: api.WorkflowName})
	require.NoError(t, other.Start())
	foreign, err := server.Client().ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "run-of-another-shape", TaskQueue: queue}, api.WorkflowName, api.RunInput{})
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		desc, err := server.Client().DescribeWorkflowExecution(ctx, foreign.GetID(), "")
		return err == nil && desc.GetPendingWorkflowTask() == nil && desc.GetWorkflowExecutionInfo().GetHistoryLength() > 3
	}, testkit.RunTimeout, 50*time.Millisecond, "the other shape's run never started its timer")
	other.Stop()

	var failed checkResult
	require.Eventually(t, func() bool {
		failed = runReplayCheck(t, env, "--sample", "10")
		return failed.code == 1
	}, testkit.RunTimeout, 100*time.Millisecond, "the check never failed: %+v", failed)
	require.Empty(t, failed.stdout)
	require.Contains(t, failed.stderr, "worker: 1 of 2 sampled open runs do not replay on this build: run-of-another-shape (run "+foreign.GetRunID()+"): [TMPRL1100]")
	require.NotContains(t, failed.stderr, "run-of-this-code", "the run of this code replays")

	bad := runReplayCheck(t, env, "--sample", "0")
	require.Equal(t, 2, bad.code)
	require.Contains(t, bad.stderr, "--sample must be at least 1")
}

func TestWorkerWithPromoteOnStartMakesItselfCurrentOverThePreviousBuild(t *testing.T) {
	testkit.NeedsDevServer(t)
	const queue = "worker-promote-on-start"
	server := testkit.StartServer(t, testkit.ServerOptions{})
	env := func(build string) map[string]string {
		return map[string]string{
			"TEMPORAL_ADDRESS": server.Address(), "AGENT_TASK_QUEUE": queue,
			"GITHUB_API_URL":   sandboxURL(t, ghsandbox.New(ghsandbox.DefaultFixture())),
			"AGENT_VERSIONING": "pinned", "AGENT_PROMOTE": "on-start", "AGENT_BUILD_ID": build,
		}
	}
	current := func() string {
		desc, err := server.Client().WorkerDeploymentClient().GetHandle("agentrun").Describe(context.Background(), client.WorkerDeploymentDescribeOptions{})
		if err != nil || desc.Info.RoutingConfig.CurrentVersion == nil {
			return ""
		}
		return desc.Info.RoutingConfig.CurrentVersion.BuildID
	}
	logsA, logsB := testkit.NewTailBuffer(1<<20), testkit.NewTailBuffer(1<<20)
	workerA := testkit.RunInBackground(t, func(ctx context.Context) error { return run(ctx, standalone.Getenv(env("a")), logsA) })
	require.Eventually(t, func() bool { return current() == "a" }, testkit.RunTimeout, 50*time.Millisecond, "build a never became current:\n%s", logsA.String())

	workerB := testkit.RunInBackground(t, func(ctx context.Context) error { return run(ctx, standalone.Getenv(env("b")), logsB) })
	require.Eventually(t, func() bool { return current() == "b" }, testkit.RunTimeout, 50*time.Millisecond, "build b never became current:\n%s", logsB.String())
	promoted := `msg="this build is the current version: its replay check passed" deploymentName=agentrun buildId=b previous=a`
	require.Eventually(t, func() bool { return strings.Contains(logsB.String(), promoted) }, testkit.RunTimeout, 50*time.Millisecond,
		"build b never said it made itself current:\n%s", logsB.String())
	workerB.Stop(t, "build b's worker")
	workerA.Stop(t, "build a's worker")
	require.Contains(t, logsA.String(), `msg="this build is the current version: its replay check passed" deploymentName=agentrun buildId=a previous="unversioned workers"`)
}
