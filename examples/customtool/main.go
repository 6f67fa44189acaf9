// Command customtool is a worker of agentrun runs with a tool of its own:
// the built-in tools and agents, plus post_release_note and the
// release-notes agent that uses it (docs/tools.md walks through it). It
// reads the variables the real worker reads for the same things:
// TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, AGENT_TASK_QUEUE, GITHUB_API_URL,
// GITHUB_TOKEN, GITHUB_BOT_LOGIN and AGENT_ALLOWED_REPOS; TICKETS_URL, when
// set, names a ticket service and adds create_ticket and the tickets agent.
// With no GitHub variable set it has no GitHub at all and serves the
// tickets agent alone.
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
	"github.com/agentrun/agentrun/tools/ghtools"
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
	acts := &activities.Activities{Model: noteWriter{next: offline.NewReviewer()}}
	// A worker without GitHub serves only the agents that use no GitHub
	// tool: it has no identity to learn and no client to make.
	var acc ghtools.Access
	if usesGitHub(getenv) {
		var err error
		if acts.GitHub, err = connectGitHub(ctx, getenv); err != nil {
			return err
		}
		acc = acts.GitHub
	}
	var err error
	if acts.Tools, err = newRegistry(acc, getenv("TICKETS_URL")); err != nil {
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
	// A follow-up run loads the earlier run it continues through its queries.
	acts.Runs = c

	queue := orDefault(getenv("AGENT_TASK_QUEUE"), api.DefaultTaskQueue)
	// Activities in flight get time to finish on SIGTERM: a cancelled post
	// is an unknown outcome the run would have to reconcile.
	w := worker.New(c, queue, worker.Options{WorkerStopTimeout: 30 * time.Second})
	registration.Register(w, acts)
	if err := w.Start(); err != nil {
		return fmt.Errorf("start the worker on %s: %w", queue, err)
	}
	var served []string
	for _, a := range acts.Tools.Agents() {
		served = append(served, a.Name)
	}
	slog.Info("customtool worker started", "taskQueue", queue, "githubLogin", acts.GitHub.Login(), "agents", served)
	<-ctx.Done()
	w.Stop()
	return nil
}

// usesGitHub reports whether any GitHub variable is set: with none, the
// worker has no GitHub at all.
func usesGitHub(getenv func(string) string) bool {
	return getenv("GITHUB_API_URL") != "" || getenv("GITHUB_TOKEN") != "" || getenv("GITHUB_BOT_LOGIN") != ""
}

// connectGitHub is the worker's GitHub access: its client, allowlist and
// bot login.
func connectGitHub(ctx context.Context, getenv func(string) string) (*github.Access, error) {
	gh, err := github.NewClient(getenv("GITHUB_API_URL"), getenv("GITHUB_TOKEN"))
	if err != nil {
		return nil, fmt.Errorf("GITHUB_API_URL: %w", err)
	}
	allowed, err := github.ParseRepoAllowlist(getenv("AGENT_ALLOWED_REPOS"))
	if err != nil {
		return nil, fmt.Errorf("AGENT_ALLOWED_REPOS: %w", err)
	}
	acc := github.NewAccess(gh, allowed, getenv("GITHUB_BOT_LOGIN"))
	// Only a comment by this login proves an operation: learn it once, as
	// the real worker does, and refuse to start without it.
	if err := acc.Identify(ctx); err != nil {
		return nil, fmt.Errorf("the worker's GitHub identity (set GITHUB_BOT_LOGIN): %w", err)
	}
	return acc, nil
}

func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}
