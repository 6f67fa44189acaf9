package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"regexp"
	"strings"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/agentrun/agentrun/workflows"
)

const startSynopsis = "start --repo OWNER/NAME --pr N [--goal TEXT] [--user LOGIN] [--approver LOGIN]... [--approval-timeout 24h] [--max-steps 20] [--idempotency-key K] [--task-queue Q] [--follow] [--json]"

// startCommand starts a review run, or finds the run its idempotency key
// already started.
type startCommand struct {
	env *env

	repo            string
	pr              int
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

// startRequest is a validated start command line.
type startRequest struct {
	runID     string
	taskQueue string
	input     workflows.RunInput
}

func (c *startCommand) Run(ctx context.Context, args []string) error {
	req, err := c.parse(args)
	if err != nil {
		return err
	}
	tc, err := c.env.temporal(ctx)
	if err != nil {
		return err
	}
	started, err := startRun(ctx, tc, req)
	if err != nil {
		return err
	}
	if err := renderStarted(c.env.stdout, started, c.json); err != nil {
		return err
	}
	if started.ClosedStatus != "" {
		fmt.Fprintf(c.env.stderr, "run %s already finished (%s); its idempotency key does not start it again\n", started.RunID, started.ClosedStatus)
		return nil
	}
	if !c.follow {
		return nil
	}
	return followRun(ctx, c.env, tc, started.RunID, 0, c.json)
}

func (c *startCommand) flags() *flag.FlagSet {
	fs := newFlagSet("start")
	fs.StringVar(&c.repo, "repo", "", "the repository, `OWNER/NAME` (required)")
	fs.IntVar(&c.pr, "pr", 0, "the pull request `number` (required)")
	fs.StringVar(&c.goal, "goal", "", "what the review should focus on")
	fs.StringVar(&c.user, "user", defaultUser(c.env.getenv), "the `LOGIN` the run acts for")
	fs.Var(&c.approvers, "approver", "a `LOGIN` allowed to approve (repeatable; none means any authenticated approver)")
	fs.DurationVar(&c.approvalTimeout, "approval-timeout", workflows.DefaultApprovalTimeout, "how long a pending action waits for a decision")
	fs.IntVar(&c.maxSteps, "max-steps", workflows.DefaultMaxSteps, "the most model and tool steps the run may take")
	fs.StringVar(&c.idempotencyKey, "idempotency-key", "", "starts at most one run per `KEY` (default: derived from repo, pr, goal and user)")
	fs.StringVar(&c.taskQueue, "task-queue", defaultTaskQueue(c.env.getenv), "the `QUEUE` the workers poll")
	fs.BoolVar(&c.follow, "follow", false, "then print the run's events until it ends or waits for a person")
	fs.BoolVar(&c.json, "json", false, "print JSON")
	return fs
}

func (c *startCommand) parse(args []string) (startRequest, error) {
	fs := c.flags()
	positional, err := parseArgs(fs, startSynopsis, args)
	if err != nil {
		return startRequest{}, err
	}
	if len(positional) > 0 {
		return startRequest{}, usageErr(fs, startSynopsis, fmt.Errorf("unexpected arguments: %s", strings.Join(positional, " ")))
	}
	if err := c.validate(); err != nil {
		return startRequest{}, usageErr(fs, startSynopsis, err)
	}
	key := c.idempotencyKey
	if key == "" {
		key = defaultIdempotencyKey(c.repo, c.pr, c.goal, c.user)
	}
	runID := runIDFor(c.repo, c.pr, key)
	return startRequest{
		runID:     runID,
		taskQueue: c.taskQueue,
		input: workflows.RunInput{
			Repo:            c.repo,
			PullNumber:      c.pr,
			Goal:            c.goal,
			UserID:          c.user,
			ConversationID:  runID,
			Approvers:       c.approvers,
			ApprovalTimeout: c.approvalTimeout,
			MaxSteps:        c.maxSteps,
		},
	}, nil
}

// GitHub's own rules: an owner is letters, digits and hyphens; a repository
// name also allows dots and underscores.
var repoPattern = regexp.MustCompile(`^[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?/[A-Za-z0-9._-]+$`)

func (c *startCommand) validate() error {
	switch {
	case c.repo == "":
		return errors.New("--repo is required")
	case !repoPattern.MatchString(c.repo) || strings.HasSuffix(c.repo, "/.") || strings.HasSuffix(c.repo, "/.."):
		return fmt.Errorf("--repo %q: want OWNER/NAME, e.g. acme/widgets", c.repo)
	case c.pr <= 0:
		return fmt.Errorf("--pr %d: want a pull request number above 0", c.pr)
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

// defaultIdempotencyKey makes a repeated identical request find the same run.
func defaultIdempotencyKey(repo string, pr int, goal, user string) string {
	return fmt.Sprintf("repo=%s\npr=%d\ngoal=%s\nuser=%s", repo, pr, goal, user)
}

// runIDFor names a run readably (whose pull request) and uniquely per key.
func runIDFor(repo string, pr int, key string) string {
	sum := sha256.Sum256([]byte(key))
	slug := strings.ToLower(strings.ReplaceAll(repo, "/", "-"))
	return fmt.Sprintf("review-%s-%d-%s", slug, pr, hex.EncodeToString(sum[:])[:12])
}

func defaultUser(getenv func(string) string) string {
	if u := getenv("USER"); u != "" {
		return u
	}
	return "cli"
}

func defaultTaskQueue(getenv func(string) string) string {
	if q := getenv("AGENT_TASK_QUEUE"); q != "" {
		return q
	}
	return workflows.DefaultTaskQueue
}

// startResult is what start reports.
type startResult struct {
	RunID string `json:"runId"`
	// ClosedStatus is set when the key's run had already finished.
	ClosedStatus string `json:"closedStatus,omitempty"`
}

// startRun starts the run, or returns the one its ID already names: an open
// run is reused (USE_EXISTING), a closed one is reported, never restarted.
func startRun(ctx context.Context, c client.Client, req startRequest) (startResult, error) {
	opts := client.StartWorkflowOptions{
		ID:                       req.runID,
		TaskQueue:                req.taskQueue,
		WorkflowIDConflictPolicy: enumspb.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
		WorkflowIDReusePolicy:    enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE,
		// Without it the SDK hides a closed run behind a handle as if it had
		// just started; with it, only the closed case is an error (an open run
		// is reused without one, by the conflict policy).
		WorkflowExecutionErrorWhenAlreadyStarted: true,
		// The workflow upserts these as it goes; setting them at start makes
		// the run visible to `list --status running` at once.
		TypedSearchAttributes: temporal.NewSearchAttributes(
			workflows.SearchAttrStatus.ValueSet(string(workflows.RunRunning)),
			workflows.SearchAttrConversation.ValueSet(req.input.ConversationID),
		),
	}
	_, err := c.ExecuteWorkflow(ctx, opts, workflows.WorkflowName, req.input)
	var alreadyStarted *serviceerror.WorkflowExecutionAlreadyStarted
	if errors.As(err, &alreadyStarted) {
		status, err := describeRun(ctx, c, req.runID)
		if err != nil {
			return startResult{}, err
		}
		return startResult{RunID: req.runID, ClosedStatus: executionStatusName(status)}, nil
	}
	if err != nil {
		return startResult{}, fmt.Errorf("start run %s: %w", req.runID, err)
	}
	return startResult{RunID: req.runID}, nil
}
