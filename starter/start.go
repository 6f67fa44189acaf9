package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/runview"
	"github.com/agentrun/agentrun/runclient"
)

const startSynopsis = "start --repo OWNER/NAME --pr N [--agent NAME] [--goal TEXT] [--user LOGIN] [--approver LOGIN]... [--approval-timeout 24h] [--max-steps 20] [--idempotency-key K] [--task-queue Q] [--follow] [--json]"

// startCommand starts a review run, or finds the run its idempotency key
// already started.
type startCommand struct {
	env *env

	repo            string
	pr              int
	agent           string
	goal            string
	user            string
	approvers       stringList
	approvalTimeout time.Duration
	maxSteps        int
	idempotencyKey  string
	taskQueue       string
	follow          bool
	json            bool
}

func (c *startCommand) Run(ctx context.Context, args []string) error {
	req, err := c.parse(args)
	if err != nil {
		return err
	}
	rc, err := c.env.runClient(ctx)
	if err != nil {
		return err
	}
	// An open run with the key's ID is reused, a closed one reported.
	started, err := rc.Start(ctx, req)
	if err != nil {
		return err
	}
	if err := runview.Started(c.env.stdout, started, c.json); err != nil {
		return err
	}
	if !c.json {
		// stdout is the run ID alone, for scripts; the person reads the rest.
		fmt.Fprintf(c.env.stderr, "run %s: agent %s\n", started.RunID, started.Agent)
	}
	if started.ClosedStatus != "" {
		fmt.Fprintf(c.env.stderr, "run %s already finished (%s); its idempotency key does not start it again\n", started.RunID, started.ClosedStatus)
		return nil
	}
	if !c.follow {
		return nil
	}
	return followRun(ctx, c.env, rc, started.RunID, 0, c.json)
}

func (c *startCommand) flags() *flag.FlagSet {
	fs := newFlagSet("start")
	fs.StringVar(&c.repo, "repo", "", "the repository, `OWNER/NAME` (required)")
	fs.IntVar(&c.pr, "pr", 0, "the pull request `number` (required)")
	fs.StringVar(&c.agent, "agent", api.DefaultAgent, "the agent that runs, by `NAME`")
	fs.StringVar(&c.goal, "goal", "", "what the review should focus on")
	fs.StringVar(&c.user, "user", c.env.settings.user, "the `LOGIN` the run acts for")
	fs.Var(&c.approvers, "approver", "a `LOGIN` allowed to approve (repeatable; none means any authenticated approver)")
	fs.DurationVar(&c.approvalTimeout, "approval-timeout", api.DefaultApprovalTimeout, "how long a pending action waits for a decision")
	fs.IntVar(&c.maxSteps, "max-steps", api.DefaultMaxSteps, "the most model and tool steps the run may take")
	fs.StringVar(&c.idempotencyKey, "idempotency-key", "", "starts at most one run per `KEY` (default: derived from repo, pr, goal and user)")
	fs.StringVar(&c.taskQueue, "task-queue", c.env.settings.taskQueue, "the `QUEUE` the workers poll")
	fs.BoolVar(&c.follow, "follow", false, "then print the run's events until it ends or waits for a person")
	fs.BoolVar(&c.json, "json", false, "print JSON")
	return fs
}

func (c *startCommand) parse(args []string) (runclient.StartRequest, error) {
	fs := c.flags()
	if err := parseNoArgs(fs, startSynopsis, args); err != nil {
		return runclient.StartRequest{}, err
	}
	if err := c.validate(); err != nil {
		return runclient.StartRequest{}, usageErr(fs, startSynopsis, err)
	}
	key := c.idempotencyKey
	if key == "" {
		key = runclient.IdempotencyKey(c.repo, c.pr, c.goal, c.user, c.agent)
	}
	runID := runclient.RunID(c.repo, c.pr, key)
	in := api.RunInput{
		Repo:            c.repo,
		PullNumber:      c.pr,
		Goal:            c.goal,
		Agent:           c.agent,
		UserID:          c.user,
		ConversationID:  runID,
		Approvers:       c.approvers,
		ApprovalTimeout: c.approvalTimeout,
		MaxSteps:        c.maxSteps,
	}
	// The key reused for another request is refused, not answered with the
	// first request's run.
	return runclient.StartRequest{RunID: runID, TaskQueue: c.taskQueue, Input: in, RequestHash: runclient.RequestHash(in)}, nil
}

func (c *startCommand) validate() error {
	switch {
	case c.repo == "":
		return errors.New("--repo is required")
	case !runclient.ValidRepo(c.repo):
		return fmt.Errorf("--repo %q: want OWNER/NAME, e.g. acme/widgets", c.repo)
	case c.pr <= 0:
		return fmt.Errorf("--pr %d: want a pull request number above 0", c.pr)
	case !api.ValidAgentName(c.agent):
		return fmt.Errorf("--agent %q: want lower case letters, digits and '-', starting with a letter, e.g. %s", c.agent, api.DefaultAgent)
	case c.approvalTimeout <= 0:
		return fmt.Errorf("--approval-timeout %s: want a duration above 0, e.g. 24h", c.approvalTimeout)
	case c.maxSteps <= 0:
		return fmt.Errorf("--max-steps %d: want a number above 0", c.maxSteps)
	case strings.TrimSpace(c.user) == "":
		return errors.New("--user is empty")
	case strings.TrimSpace(c.taskQueue) == "":
		return errors.New("--task-queue is empty")
	}
	return nil
}
