// Command customtool is a worker of agentrun runs with a tool of its own:
// the built-in tools and agents, plus post_release_note and the
// release-notes agent that uses it (docs/tools.md walks through it). It
// reads the variables the real worker reads for the same things:
// TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, AGENT_TASK_QUEUE, GITHUB_API_URL,
// GITHUB_TOKEN, GITHUB_BOT_LOGIN and AGENT_ALLOWED_REPOS; TICKETS_URL, when
// set, names a ticket service and adds create_ticket and the tickets agent.
package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"

	"github.com/agentrun/agentrun/activities"
	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/github"
	"github.com/agentrun/agentrun/model/offline"
	"github.com/agentrun/agentrun/registration"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Getenv)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "customtool:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, getenv func(string) string) error {
	gh, err := github.NewClient(getenv("GITHUB_API_URL"), getenv("GITHUB_TOKEN"))
	if err != nil {
		return fmt.Errorf("GITHUB_API_URL: %w", err)
	}
	allowed, err := activities.ParseRepoAllowlist(getenv("AGENT_ALLOWED_REPOS"))
	if err != nil {
		return fmt.Errorf("AGENT_ALLOWED_REPOS: %w", err)
	}
	acts := &activities.Activities{GitHub: gh, BotLogin: getenv("GITHUB_BOT_LOGIN"), AllowedRepos: allowed,
		Model: noteWriter{next: offline.NewReviewer()}}
	// Only a comment by this login proves an operation: learn it once, as
	// the real worker does, and refuse to start without it.
	if acts.BotLogin, err = acts.GitHubIdentity(ctx); err != nil {
		return fmt.Errorf("the worker's GitHub identity (set GITHUB_BOT_LOGIN): %w", err)
	}
	if acts.Tools, err = newRegistry(activities.NewGitHubAccess(acts), getenv("TICKETS_URL")); err != nil {
		return err
	}
	c, err := client.Dial(client.Options{HostPort: orDefault(getenv("TEMPORAL_ADDRESS"), client.DefaultHostPort),
		Namespace: orDefault(getenv("TEMPORAL_NAMESPACE"), client.DefaultNamespace)})
	if err != nil {
		return fmt.Errorf("connect to Temporal: %w", err)
	}
	defer c.Close()
	// A long conversation reaches ModelNext by reference: the activity reads
	// it back from the run through this store.
	acts.Conversations = activities.NewQueryConversationStore(c, api.QueryConversation)

	queue := orDefault(getenv("AGENT_TASK_QUEUE"), api.DefaultTaskQueue)
	// Activities in flight get time to finish on SIGTERM: a cancelled post
	// is an unknown outcome the run would have to reconcile.
	w := worker.New(c, queue, worker.Options{WorkerStopTimeout: 30 * time.Second})
	registration.Register(w, acts)
	if err := w.Start(); err != nil {
		return fmt.Errorf("start the worker on %s: %w", queue, err)
	}
	slog.Info("customtool worker started", "taskQueue", queue, "githubLogin", acts.BotLogin, "agent", AgentReleaseNotes)
	<-ctx.Done()
	w.Stop()
	return nil
}

func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}
