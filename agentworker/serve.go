package agentworker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/agentrun/agentrun/activities"
	"github.com/agentrun/agentrun/agents"
	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/github"
	wiring "github.com/agentrun/agentrun/internal/agentworker"
	"github.com/agentrun/agentrun/internal/config"
	"github.com/agentrun/agentrun/internal/startup"
)

// serve reads the configuration, connects, and polls until ctx ends.
func serve(ctx context.Context, opts Options, table config.Table[wiring.Config], own ownValues) error {
	logOutput := opts.Stderr
	cfg, acts, err := prepare(opts, table)
	if err != nil {
		return err
	}
	logger := newLogger(cfg.LogFormat, logOutput)
	if err := connectGitHub(ctx, cfg, acts, logger); err != nil {
		return err
	}
	exts, err := opts.extensions(own, acts.GitHub)
	if err != nil {
		return err
	}
	// Before the Temporal connection: a tool set that cannot be served
	// stops the worker before it takes a task.
	toolset, err := wiring.LoadTools(ctx, cfg, acts, logOutput, exts...)
	if err != nil {
		return err
	}
	// Deferred before the connection's close, so it runs after it: the
	// stopped worker's activities are done with the MCP servers by then.
	defer func() {
		if err := toolset.Close(); err != nil {
			logger.Warn("closing the MCP connections", "err", err)
		}
	}()
	if len(toolset.Extra) > 0 {
		logger.Info("tools from AGENT_TOOLS_FILE", "tools", strings.Join(toolset.Extra, ","))
	}
	conn, err := startup.Connect(ctx, cfg.Telemetry, nil, cfg.Temporal, logger)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	c := conn.Temporal
	if err := setUpSearchAttributes(ctx, c, cfg.Temporal, logger); err != nil {
		return err
	}

	w := wiring.NewWorkerWithOptions(c, cfg.WorkerOptions(), acts)
	if err := w.Start(); err != nil {
		return fmt.Errorf("start the worker on task queue %s: %w", cfg.TaskQueue, err)
	}
	started := append(cfg.Temporal.LogAttrs(),
		"taskQueue", cfg.TaskQueue, "modelProvider", cfg.ModelProvider, "githubLogin", acts.GitHub.Login(), "agents", agentNames(acts))
	if acts.GitHub != nil {
		started = append(started, "githubApiUrl", acts.GitHub.BaseURL())
	}
	logger.Info("worker started", append(started, deploymentAttrs(cfg.Deployment)...)...)
	switch {
	case cfg.Deployment.PromoteOnStart:
		promoteOnStart(ctx, opts.Program, c, cfg, acts, logger)
	case cfg.Deployment.Pinned:
		promote(ctx, c, cfg.WorkerOptions(), logger)
	}
	<-ctx.Done()
	logger.Info("stopping: finishing the tasks in hand", "stopTimeout", cfg.StopTimeout)
	w.Stop()
	logger.Info("worker stopped")
	return nil
}

func deploymentAttrs(d wiring.Deployment) []any {
	if !d.Pinned {
		return []any{"versioning", wiring.VersioningOff}
	}
	return []any{"versioning", wiring.VersioningPinned, "deploymentName", d.Name, "buildId", d.BuildID}
}

// promoteTimeout bounds the wait for the server to register a new version.
const promoteTimeout = time.Minute

// promote makes the worker's version current if its deployment has never had
// one, and says where new runs go. Nothing here stops the worker: one that
// is not current still serves the runs pinned to its build, and an operator
// may promote it at any time.
func promote(ctx context.Context, c client.Client, opts wiring.WorkerOptions, logger *slog.Logger) {
	ctx, cancel := context.WithTimeout(ctx, promoteTimeout)
	defer cancel()
	d := opts.Deployment
	setCurrent := fmt.Sprintf("temporal worker deployment set-current-version --deployment-name %s --build-id %s", d.Name, d.BuildID)
	routing, err := wiring.PromoteFirstVersion(ctx, c, opts)
	switch {
	case err != nil && errors.Is(ctx.Err(), context.Canceled):
		// Stopping before the server registered the version: not a failure.
	case err != nil:
		logger.Warn("could not check this build's place in its deployment; it gets new runs only once it is the current version",
			"err", err, "setCurrent", setCurrent)
	case routing.Promoted:
		logger.Info("this build is the current version: the deployment had none", "deploymentName", d.Name, "buildId", d.BuildID)
	case routing.Serves(d):
		logger.Info("this build is the current version", "deploymentName", d.Name, "buildId", d.BuildID)
	default:
		logger.Info("this build serves the runs pinned to it; new runs go to the current version until an operator promotes it",
			"current", currentBuild(routing), "setCurrent", setCurrent)
	}
}

func currentBuild(r wiring.Routing) string {
	if r.Current == nil {
		return "unversioned workers"
	}
	return r.Current.BuildID
}

// connectGitHub learns the worker's GitHub identity and logs its target. A
// worker with no GitHub variable has neither, and serves only agents that
// use no GitHub tool (LoadTools refuses any other).
func connectGitHub(ctx context.Context, cfg wiring.Config, acts *activities.Activities, logger *slog.Logger) error {
	if !cfg.HasGitHub() {
		logger.Info("no GitHub variable is set: serving only agents that use no GitHub tool")
		return nil
	}
	if cfg.GitHub.Token == "" && !cfg.GitHub.AppMode() {
		logger.Warn("GITHUB_TOKEN is unset: GitHub calls are anonymous and cannot post comments", "githubApiUrl", cfg.GitHub.APIURL)
	}
	if err := identify(ctx, acts); err != nil {
		return err
	}
	logger.Info("GitHub target",
		"githubApiUrl", acts.GitHub.BaseURL(), "githubLogin", acts.GitHub.Login(),
		"loginFrom", identitySource(cfg), "allowedRepos", allowedRepos(cfg))
	return nil
}

// identify resolves the bot login before anything polls: a worker that cannot
// tell its own comments from look-alikes must not run. GitHub refusing the
// token's /user is a configuration problem; an unreachable GitHub is not.
func identify(ctx context.Context, acts *activities.Activities) error {
	ctx, cancel := context.WithTimeout(ctx, identifyTimeout)
	defer cancel()
	err := wiring.Identify(ctx, acts)
	var appErr *temporal.ApplicationError
	var refused *github.AppAuthError
	if errors.As(err, &appErr) && appErr.Type() == api.ErrTypeGitHubRejected || errors.As(err, &refused) || errors.Is(err, github.ErrLoginMismatch) {
		return &startup.ConfigError{Err: err}
	}
	return err
}

// identifyTimeout bounds the one GET /user of start-up.
const identifyTimeout = 30 * time.Second

func identitySource(cfg wiring.Config) string {
	if cfg.GitHub.AppMode() {
		return "GET /app"
	}
	if cfg.GitHubBotLogin != "" {
		return "GITHUB_BOT_LOGIN"
	}
	return "GET /user"
}

func allowedRepos(cfg wiring.Config) string {
	if len(cfg.AllowedRepos) == 0 {
		return "any"
	}
	return strings.Join(cfg.AllowedRepos, ",")
}

// prepare reads the configuration through table and builds the activities,
// with opts.Model over MODEL_PROVIDER's model.
func prepare(opts Options, table config.Table[wiring.Config]) (wiring.Config, *activities.Activities, error) {
	cfg, err := table.Read(opts.Getenv)
	if err != nil {
		return cfg, nil, &startup.ConfigError{Err: err}
	}
	acts, err := wiring.NewActivities(cfg)
	if err != nil {
		return cfg, nil, &startup.ConfigError{Err: err}
	}
	if opts.Model != nil {
		acts.Model = opts.Model(acts.Model)
	}
	return cfg, acts, nil
}

// agentNames are the agents the worker serves, comma-separated.
func agentNames(acts *activities.Activities) string {
	reg := acts.Tools
	if reg == nil { // registration's default
		reg = agents.MustBuiltin(nil)
	}
	var names []string
	for _, a := range reg.Agents() {
		names = append(names, a.Name)
	}
	return strings.Join(names, ",")
}

func newLogger(format string, out io.Writer) *slog.Logger {
	if format == wiring.LogJSON {
		return slog.New(slog.NewJSONHandler(out, nil))
	}
	return slog.New(slog.NewTextHandler(out, nil))
}
