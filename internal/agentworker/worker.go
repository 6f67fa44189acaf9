package agentworker

import (
	"fmt"
	"os"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"

	"github.com/agentrun/agentrun/activities"
	"github.com/agentrun/agentrun/workflows"
)

// NewActivities builds the activities from the configuration: the GitHub
// client for GITHUB_API_URL/GITHUB_TOKEN and the MODEL_PROVIDER model, whose
// own settings (OPENAI_* for openai) are read through getenv.
func NewActivities(cfg Config, getenv func(string) string) (*activities.Activities, error) {
	gh, err := activities.NewGitHubClient(cfg.GitHubAPIURL, cfg.GitHubToken)
	if err != nil {
		return nil, fmt.Errorf("GitHub client: %w", err)
	}
	model, err := activities.NewModelFromEnv(cfg.ModelProvider, getenv)
	if err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	return &activities.Activities{GitHub: gh, Model: model}, nil
}

// New makes a worker for cfg.TaskQueue with the AgentRun workflow and the
// activities cfg describes registered (the model's settings from the process
// environment). The caller starts and stops it.
func New(c client.Client, cfg Config) (worker.Worker, error) {
	acts, err := NewActivities(cfg, os.Getenv)
	if err != nil {
		return nil, err
	}
	return NewWithActivities(c, cfg.TaskQueue, acts), nil
}

// NewWithActivities is New with activities the caller built, for tests that
// point the tools at a sandbox or swap the model. Activities without a
// conversation store get one over c.
func NewWithActivities(c client.Client, taskQueue string, acts *activities.Activities) worker.Worker {
	w := worker.New(c, taskQueue, worker.Options{})
	Register(w, WithConversationStore(c, acts))
	return w
}

// WithConversationStore returns acts with a store that resolves conversation
// references by querying the run through c, the process's one Temporal
// client. Activities that already have a store are returned as they are;
// acts itself is never changed.
func WithConversationStore(c client.Client, acts *activities.Activities) *activities.Activities {
	if acts.Conversations != nil {
		return acts
	}
	wired := *acts
	wired.Conversations = activities.NewQueryConversationStore(c, workflows.QueryConversation)
	return &wired
}
