package agentworker

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"

	"github.com/agentrun/agentrun/activities"
	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/github"
)

// NewActivities builds the activities from the configuration: the GitHub
// access for GITHUB_API_URL and GITHUB_TOKEN or the GitHub App, the bot login and allowed
// repositories, and the MODEL_PROVIDER model with its settings. It makes no
// request; Identify then fills in the bot login if GITHUB_BOT_LOGIN did not.
func NewActivities(cfg Config) (*activities.Activities, error) {
	chosen, err := NewModel(cfg)
	if err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	acts := &activities.Activities{Model: chosen, Callbacks: cfg.Callbacks, RunPageURL: cfg.RunPageURL}
	// Without GitHub the access stays nil, and a permission check says the
	// worker has none (activities.CheckRepoPermission).
	if cfg.HasGitHub() {
		acts.GitHub, err = github.Open(cfg.GitHub, cfg.AllowedRepos, cfg.GitHubBotLogin)
		if err != nil {
			return nil, fmt.Errorf("GitHub client: %w", err)
		}
	}
	return acts, nil
}

// ErrNoIdentity wraps every failure of Identify: the worker cannot tell its
// own comments from look-alikes, so it must not start.
var ErrNoIdentity = errors.New("cannot determine the worker's GitHub identity; set GITHUB_BOT_LOGIN to the login its token posts as " +
	"(for a GitHub App, \"app-name[bot]\")")

// Identify learns the login acts' GitHub access posts as from GET /user
// unless GITHUB_BOT_LOGIN set it, once per process: only comments by that
// login prove an operation.
func Identify(ctx context.Context, acts *activities.Activities) error {
	if err := acts.GitHub.Identify(ctx); err != nil {
		return fmt.Errorf("%w: %w", ErrNoIdentity, err)
	}
	return nil
}

// New makes a worker for cfg.TaskQueue with the AgentRun workflow and the
// activities cfg describes registered, its GitHub identity resolved. The caller starts and stops it.
func New(ctx context.Context, c client.Client, cfg Config) (worker.Worker, error) {
	acts, err := NewActivities(cfg)
	if err != nil {
		return nil, err
	}
	if cfg.HasGitHub() {
		if err := Identify(ctx, acts); err != nil {
			return nil, err
		}
	}
	return NewWorkerWithOptions(c, cfg.WorkerOptions(), acts), nil
}

// NewWithActivities is New with activities the caller built, for tests that
// point the tools at a sandbox or swap the model; it stops as a worker with
// the default AGENT_STOP_TIMEOUT does.
func NewWithActivities(c client.Client, taskQueue string, acts *activities.Activities) worker.Worker {
	return NewWorker(c, taskQueue, DefaultStopTimeout, acts)
}

// NewWorker makes a worker for taskQueue running acts. Its Stop lets
// activities in flight finish for up to stopTimeout before cancelling them:
// a cancelled action may or may not have happened, and the run would have
// to reconcile it. Activities without a conversation store get one over c.
func NewWorker(c client.Client, taskQueue string, stopTimeout time.Duration, acts *activities.Activities) worker.Worker {
	return NewWorkerWithOptions(c, WorkerOptions{TaskQueue: taskQueue, StopTimeout: stopTimeout}, acts)
}

// StickyScheduleToStartTimeout is how long a run's next workflow task
// waits for the worker that ran its last one before any worker may take it.
// A killed worker leaves its runs' tasks on its own queue; the SDK's 5 s
// would add that much to every recovery. A live worker starts its tasks
// within milliseconds, and one that does not in time costs only a replay
// elsewhere.
const StickyScheduleToStartTimeout = 500 * time.Millisecond

// WorkerOptions are a worker's settings besides its activities.
type WorkerOptions struct {
	TaskQueue string
	// StopTimeout is how long Stop lets activities in flight finish.
	StopTimeout time.Duration
	// Deployment is the version the worker polls as; the zero value is an
	// unversioned worker.
	Deployment Deployment
	// StickyCacheSize, when set, is the process's sticky cache size
	// (AGENT_STICKY_CACHE_SIZE). The SDK keeps one cache per process, sized
	// when its first worker starts, so it takes effect only on the first
	// worker of a process; zero leaves the SDK's size.
	StickyCacheSize int
}

// WorkerOptions are the worker settings of cfg.
func (c Config) WorkerOptions() WorkerOptions {
	return WorkerOptions{TaskQueue: c.TaskQueue, StopTimeout: c.StopTimeout, Deployment: c.Deployment, StickyCacheSize: c.StickyCacheSize}
}

// NewWorkerWithOptions is NewWorker with a Worker Deployment Version: a
// versioned worker takes only the tasks of runs pinned to its version, and
// of new runs once its version is the deployment's current one (see
// PromoteFirstVersion).
func NewWorkerWithOptions(c client.Client, opts WorkerOptions, acts *activities.Activities) worker.Worker {
	if opts.StickyCacheSize > 0 {
		worker.SetStickyWorkflowCacheSize(opts.StickyCacheSize)
	}
	w := worker.New(c, opts.TaskQueue, worker.Options{
		WorkerStopTimeout:            opts.StopTimeout,
		StickyScheduleToStartTimeout: StickyScheduleToStartTimeout,
		// The SDK would hold a heartbeat's details back for 80% of the
		// heartbeat timeout; people watch the model write at this pace.
		MaxHeartbeatThrottleInterval: activities.ModelWritingInterval,
		DeploymentOptions: worker.DeploymentOptions{
			UseVersioning: opts.Deployment.Pinned,
			Version:       opts.Deployment.version(),
		},
	})
	Register(w, WithConversationStore(c, acts))
	return w
}

// WithConversationStore returns acts with a store that resolves conversation
// references by querying the run through c, the process's one Temporal
// client, and with c as the reader of earlier runs a follow-up loads
// (Activities.Runs). What acts already has is kept; acts itself is never
// changed.
func WithConversationStore(c client.Client, acts *activities.Activities) *activities.Activities {
	if acts.Conversations != nil && (acts.Runs != nil || c == nil) {
		return acts
	}
	wired := *acts
	if wired.Conversations == nil {
		wired.Conversations = activities.NewQueryConversationStore(c, api.QueryConversation)
	}
	if wired.Runs == nil && c != nil {
		wired.Runs = c
	}
	return &wired
}
