package agentworker

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"

	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	sdkworker "go.temporal.io/sdk/worker"

	"github.com/agentrun/agentrun/activities"
	wiring "github.com/agentrun/agentrun/internal/agentworker"
	"github.com/agentrun/agentrun/internal/config"
	"github.com/agentrun/agentrun/internal/startup"
	"github.com/agentrun/agentrun/internal/temporalclient"
)

// replayCheck replays a sample of the open runs of AGENT_TASK_QUEUE on this
// build's code, registered as the worker registers it (its own extensions
// and AGENT_TOOLS_FILE included), and names the runs that do not replay. It returns nil when all
// of them do (exit 0), a *wiring.ReplayFailedError when some do not
// (exit 1), and a *startup.ConfigError for a bad flag or variable (exit 2).
func replayCheck(ctx context.Context, opts Options, table config.Table[wiring.Config], own ownValues) error {
	args, getenv, stdout, stderr := opts.Args[1:], opts.Getenv, opts.Stdout, opts.Stderr
	flags := flag.NewFlagSet(opts.Program+" "+ReplayCheckCommand, flag.ContinueOnError)
	flags.SetOutput(stderr)
	sample := flags.Int("sample", wiring.DefaultReplaySample, "the most open runs to replay, newest first")
	fromBuild := flags.String("from-build", "", "replay only the runs pinned to this build of AGENT_DEPLOYMENT_NAME (the ones you are about to move); default: every open run of the queue")
	if err := flags.Parse(args); err != nil {
		return &startup.ConfigError{Err: fmt.Errorf("%s: %w", ReplayCheckCommand, err)}
	}
	if *sample < 1 || flags.NArg() > 0 {
		return &startup.ConfigError{Err: fmt.Errorf("%s: --sample must be at least 1 and no other arguments are taken (have %d, %q)", ReplayCheckCommand, *sample, flags.Args())}
	}
	cfg, acts, err := prepare(opts, table)
	if err != nil {
		return err
	}
	exts, err := opts.extensions(own, acts.GitHub)
	if err != nil {
		return err
	}
	toolset, err := wiring.LoadTools(ctx, cfg, acts, stderr, exts...)
	if err != nil {
		return err
	}
	defer toolset.Close()
	logger := newLogger(cfg.LogFormat, stderr)
	c, err := temporalclient.Dial(ctx, cfg.Temporal, logger)
	if err != nil {
		return err
	}
	defer c.Close()
	scope := wiring.ReplayScope{TaskQueue: cfg.TaskQueue, Sample: *sample, Deployment: cfg.Deployment.Name, FromBuild: *fromBuild}
	if *fromBuild != "" && scope.Deployment == "" {
		// An unversioned worker's configuration leaves the deployment unset.
		scope.Deployment = getenvOr(getenv, "AGENT_DEPLOYMENT_NAME", wiring.DefaultDeploymentName)
	}
	report, err := newReplayCheck(c, cfg, acts).Run(ctx, scope)
	if err != nil {
		return err
	}
	if err := report.Err(); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "replay check: %d sampled open runs of task queue %s%s replay on this build\n",
		report.Replayed, cfg.TaskQueue, fromBuildText(scope))
	return nil
}

func fromBuildText(s wiring.ReplayScope) string {
	if s.FromBuild == "" {
		return ""
	}
	return fmt.Sprintf(" pinned to %s:%s", s.Deployment, s.FromBuild)
}

func getenvOr(getenv func(string) string, name, fallback string) string {
	if v := getenv(name); v != "" {
		return v
	}
	return fallback
}

// newReplayCheck is the check over c with the worker's registration of acts
// and the converters of cfg's client.
func newReplayCheck(c client.Client, cfg wiring.Config, acts *activities.Activities) wiring.ReplayCheck {
	return wiring.ReplayCheck{
		Client:   c,
		Options:  wiring.ReplayerOptions(cfg.Temporal.ClientOptions(nil)),
		Register: wiring.ReplayRegistration(acts),
	}
}

// promoteOnStart makes this build current (AGENT_PROMOTE=on-start) once the
// open runs it would take over replay on it, and says where the previous
// build's runs are. Like promote, nothing here stops the worker: a build that
// is not made current still serves the runs pinned to it.
func promoteOnStart(ctx context.Context, program string, c client.Client, cfg wiring.Config, acts *activities.Activities, logger *slog.Logger) {
	ctx, cancel := context.WithTimeout(ctx, promoteTimeout)
	defer cancel()
	d := cfg.Deployment
	setCurrent := fmt.Sprintf("temporal worker deployment set-current-version --deployment-name %s --build-id %s", d.Name, d.BuildID)
	routing, err := wiring.PromoteAfterReplay(ctx, c, cfg.WorkerOptions(), newReplayCheck(c, cfg, acts), wiring.DefaultReplaySample)
	var failed *wiring.ReplayFailedError
	switch {
	case err != nil && errors.Is(ctx.Err(), context.Canceled):
	case errors.As(err, &failed):
		logger.Error("this build is not made current: open runs it would take over do not replay on it; new runs go to the current version",
			"err", err, "current", currentBuild(routing), "setCurrentAnyway", setCurrent)
	case err != nil:
		logger.Warn("could not make this build current; it gets new runs only once it is the current version",
			"err", err, "setCurrent", setCurrent)
	case !routing.Promoted:
		logger.Info("this build is the current version", "deploymentName", d.Name, "buildId", d.BuildID)
	default:
		logger.Info("this build is the current version: its replay check passed", "deploymentName", d.Name, "buildId", d.BuildID,
			"previous", previousBuild(routing))
		if routing.Previous != nil {
			logPinnedToPrevious(ctx, program, c, *routing.Previous, d, logger)
		}
	}
}

func previousBuild(r wiring.Routing) string {
	if r.Previous == nil {
		return "unversioned workers"
	}
	return r.Previous.BuildID
}

// logPinnedToPrevious says how many runs stay on the previous build: they
// go on only while a worker of that build polls.
func logPinnedToPrevious(ctx context.Context, program string, c client.Client, previous sdkworker.WorkerDeploymentVersion, d wiring.Deployment, logger *slog.Logger) {
	query := fmt.Sprintf(`TemporalWorkerDeploymentVersion=%q AND ExecutionStatus="Running"`, previous.DeploymentName+":"+previous.BuildID)
	resp, err := c.CountWorkflow(ctx, &workflowservice.CountWorkflowExecutionsRequest{Query: query})
	if err != nil {
		logger.Warn("could not count the runs pinned to the previous build", "err", err, "query", query)
		return
	}
	if resp.GetCount() == 0 {
		return
	}
	logger.Warn("runs pinned to the previous build stay on it: they go on only while a worker of that build polls; keep one until they drain, or move them to this build once `worker replay-check --from-build` passes",
		"previous", previous.BuildID, "openRuns", resp.GetCount(), "drainQuery", query,
		"replayCheck", program+" "+ReplayCheckCommand+" --from-build "+previous.BuildID,
		"move", fmt.Sprintf("temporal workflow update-options --query '%s' --versioning-override-behavior pinned --versioning-override-deployment-name %s --versioning-override-build-id %s", query, d.Name, d.BuildID))
}
