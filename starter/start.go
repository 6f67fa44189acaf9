package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/runview"
	"github.com/agentrun/agentrun/runclient"
)

const startSynopsis = "start (--repo OWNER/NAME --pr N | --target kind=KIND --target NAME=VALUE... | --target JSON | --follow-up RUN_ID) [--agent NAME] [--goal TEXT] [--user LOGIN] [--approver LOGIN]... [--approval-timeout 24h] [--max-steps 20] [--idempotency-key K] [--callback URL [--callback-deadline 24h]] [--check-run] [--task-queue Q] [--follow] [--json]"

// startCommand starts a run of any agent on its target, or finds the run its
// idempotency key already started.
type startCommand struct {
	env *env

	repo            string
	pr              int
	target          stringList
	agent           string
	goal            string
	user            string
	approvers       stringList
	approvalTimeout time.Duration
	maxSteps        int
	idempotencyKey  string
	callback        string
	callbackWithin  time.Duration
	taskQueue       string
	follow          bool
	json            bool
	checkRun        bool
	// followUp is the finished run whose conversation this run continues.
	followUp string
}

func (c *startCommand) Run(ctx context.Context, args []string) error {
	fs := c.flags()
	if err := parseNoArgs(fs, startSynopsis, args); err != nil {
		return err
	}
	if c.followUp != "" {
		return c.startFollowUp(ctx, fs)
	}
	req, err := c.request(fs)
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
	return c.show(ctx, rc, started)
}

// show prints what a start did and, with --follow, the run's events.
func (c *startCommand) show(ctx context.Context, rc *runclient.Client, started runclient.Started) error {
	if err := runview.Started(c.env.stdout, started, c.json); err != nil {
		return err
	}
	if !c.json {
		// stdout is the run ID alone, for scripts; the person reads the rest.
		fmt.Fprintf(c.env.stderr, "run %s: agent %s\n", started.RunID, started.Agent)
	}
	if started.ClosedStatus != "" {
		fmt.Fprintf(c.env.stderr, "run %s already finished (%s); its idempotency key does not start it again\n", started.RunID, started.ClosedStatus)
	}
	if !c.follow {
		return nil
	}
	// A finished run is followed too: its events, and its exit code.
	return followRun(ctx, c.env, rc, started.RunID, 0, c.json)
}

func (c *startCommand) flags() *flag.FlagSet {
	fs := newFlagSet("start")
	fs.StringVar(&c.repo, "repo", "", "a pull request's repository, `OWNER/NAME` (with --pr: --target's shorthand)")
	fs.IntVar(&c.pr, "pr", 0, "the pull request `number` (with --repo)")
	fs.Var(&c.target, "target", "the run's target: `NAME=VALUE` (repeatable; kind=KIND names its kind, default "+api.TargetPullRequest+
		" with repo= and pull=), or one JSON object {\"kind\":..., \"fields\":{...}}")
	fs.StringVar(&c.agent, "agent", api.DefaultAgent, "the agent that runs, by `NAME`")
	fs.StringVar(&c.goal, "goal", "", "what the run should focus on")
	fs.StringVar(&c.user, "user", c.env.settings.user, "the `LOGIN` the run acts for")
	fs.Var(&c.approvers, "approver", "a `LOGIN` allowed to approve (repeatable; none means, on a pull request, whoever has write permission on its repository, "+
		"which the worker asks GitHub; a target of another kind needs at least one)")
	fs.DurationVar(&c.approvalTimeout, "approval-timeout", api.DefaultApprovalTimeout, "how long a pending action waits for a decision")
	fs.IntVar(&c.maxSteps, "max-steps", api.DefaultMaxSteps, "the most model calls the run may make (maxSteps); reaching it without a final answer fails the run")
	fs.StringVar(&c.idempotencyKey, "idempotency-key", "", "starts at most one run per `KEY` (default: derived from the agent, target, goal and user)")
	fs.StringVar(&c.callback, "callback", "", "POST the run's result, signed, to `URL` when it ends; it must be under "+api.EnvCallbackAllowed)
	fs.DurationVar(&c.callbackWithin, "callback-deadline", api.DefaultCallbackDeadline, "how long the run keeps retrying its --callback delivery")
	fs.BoolVar(&c.checkRun, "check-run", false, "show the run as a check run agentrun/AGENT on the pull request's head, with Approve and Reject buttons while it waits (needs a worker that may write checks: a GitHub App)")
	fs.StringVar(&c.taskQueue, "task-queue", c.env.settings.taskQueue, "the `QUEUE` the workers poll")
	fs.BoolVar(&c.follow, "follow", false, "then print the run's events until it ends or waits for a person; "+followExitCodes)
	fs.BoolVar(&c.json, "json", false, "print JSON")
	fs.StringVar(&c.followUp, "follow-up", "", "continue the conversation of the finished run `RUN_ID`: a new run on its target, by its agent and approvers, "+
		"with --goal as the new message (no --repo, --pr, --target, --agent or --approver)")
	return fs
}

func (c *startCommand) parse(args []string) (runclient.StartRequest, error) {
	fs := c.flags()
	if err := parseNoArgs(fs, startSynopsis, args); err != nil {
		return runclient.StartRequest{}, err
	}
	return c.request(fs)
}

// request is the start the parsed flags of fs ask for.
func (c *startCommand) request(fs *flag.FlagSet) (runclient.StartRequest, error) {
	if err := c.validate(); err != nil {
		return runclient.StartRequest{}, usageErr(fs, startSynopsis, err)
	}
	target, err := c.runTarget()
	if err != nil {
		return runclient.StartRequest{}, usageErr(fs, startSynopsis, err)
	}
	key, formerRunID := c.idempotencyKey, ""
	runID := runclient.KeyedTargetRunID(c.agent, target, key)
	if key != "" {
		formerRunID = runclient.FormerKeyedRunID(target, key)
	} else {
		key = runclient.TargetIdempotencyKey(target, c.goal, c.user, c.agent)
		runID = runclient.TargetRunID(c.agent, target, key)
	}
	in := api.RunInput{
		Goal:            c.goal,
		Agent:           c.agent,
		UserID:          c.user,
		ConversationID:  runID,
		Approvers:       c.approvers,
		ApprovalTimeout: c.approvalTimeout,
		MaxSteps:        c.maxSteps,
	}.WithTarget(target)
	if c.checkRun {
		in.CheckRun = &api.CheckRunInput{}
	}
	if err := runclient.CheckStart(in); err != nil {
		return runclient.StartRequest{}, usageErr(fs, startSynopsis, startRefusal(err))
	}
	if c.callback != "" {
		if c.env.settingsErr != nil {
			return runclient.StartRequest{}, c.env.settingsErr
		}
		if err := c.env.settings.callbackAllowed.Check(c.callback); err != nil {
			return runclient.StartRequest{}, usageErr(fs, startSynopsis, fmt.Errorf("--callback: %w", err))
		}
		in.Callback = &api.Callback{URL: c.callback, Deadline: c.callbackWithin}
	}
	// The key reused for another request is refused, not answered with the
	// first request's run.
	return runclient.StartRequest{RunID: runID, FormerRunID: formerRunID, TaskQueue: c.taskQueue, Input: in, RequestHash: runclient.RequestHash(in)}, nil
}

func (c *startCommand) validate() error {
	shorthand := c.repo != "" || c.pr != 0
	switch {
	case shorthand && len(c.target) > 0:
		return errors.New("--repo and --pr are --target's shorthand for a pull request: give one or the other")
	case !shorthand && len(c.target) == 0:
		return errors.New("name the run's target: --repo OWNER/NAME --pr N, or --target NAME=VALUE")
	case shorthand && c.repo == "":
		return errors.New("--repo is required")
	case shorthand && !runclient.ValidRepo(c.repo):
		return fmt.Errorf("--repo %q: want OWNER/NAME, e.g. acme/widgets", c.repo)
	case shorthand && c.pr <= 0:
		return fmt.Errorf("--pr %d: want a pull request number above 0", c.pr)
	case !api.ValidAgentName(c.agent):
		return fmt.Errorf("--agent %q: want lower case letters, digits and '-', starting with a letter, e.g. %s", c.agent, api.DefaultAgent)
	case c.approvalTimeout <= 0:
		return fmt.Errorf("--approval-timeout %s: want a duration above 0, e.g. 24h", c.approvalTimeout)
	case c.callbackWithin <= 0:
		return fmt.Errorf("--callback-deadline %s: want a duration above 0, e.g. 24h", c.callbackWithin)
	case c.maxSteps <= 0:
		return fmt.Errorf("--max-steps %d: want a number above 0", c.maxSteps)
	case strings.TrimSpace(c.user) == "":
		return errors.New("--user is empty")
	case strings.TrimSpace(c.taskQueue) == "":
		return errors.New("--task-queue is empty")
	}
	return nil
}

// runTarget reads the target the flags name: --repo and --pr, one JSON
// --target, or --target NAME=VALUE pairs, kind= among them.
func (c *startCommand) runTarget() (api.Target, error) {
	if len(c.target) == 0 {
		return api.ParseTarget(c.repo, c.pr)
	}
	if len(c.target) == 1 && strings.HasPrefix(strings.TrimSpace(c.target[0]), "{") {
		var t struct {
			Kind   string            `json:"kind"`
			Fields map[string]string `json:"fields"`
		}
		dec := json.NewDecoder(strings.NewReader(c.target[0]))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&t); err != nil {
			return api.Target{}, fmt.Errorf("--target: want {\"kind\":KIND,\"fields\":{NAME:VALUE,...}}: %w", err)
		}
		return c.checkedTarget(t.Kind, t.Fields)
	}
	kind, fields := "", map[string]string{}
	for _, pair := range c.target {
		name, value, ok := strings.Cut(pair, "=")
		if !ok {
			return api.Target{}, fmt.Errorf("--target %.60q: want NAME=VALUE", pair)
		}
		if _, dup := fields[name]; dup || (name == "kind" && kind != "") {
			return api.Target{}, fmt.Errorf("--target %s is given twice", name)
		}
		if name == "kind" {
			kind = value
			continue
		}
		fields[name] = value
	}
	return c.checkedTarget(kind, fields)
}

func (c *startCommand) checkedTarget(kind string, fields map[string]string) (api.Target, error) {
	t, err := api.NewTarget(kind, fields)
	if err != nil {
		return api.Target{}, fmt.Errorf("--target: %w", err)
	}
	if t.IsPullRequest() && !runclient.ValidRepo(t.Owner+"/"+t.Repo) {
		return api.Target{}, fmt.Errorf("--target repo %q: want OWNER/NAME, e.g. acme/widgets", t.Owner+"/"+t.Repo)
	}
	return t, nil
}

// startRefusal words a start the rules refuse in the starter's flags.
func startRefusal(err error) error {
	if errors.Is(err, api.ErrNeedsApprovers) {
		return err
	}
	return fmt.Errorf("--agent and --target: %w", err)
}
