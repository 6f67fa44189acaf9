package api

import (
	"encoding/json"
	"fmt"
	"time"
)

// Defaults applied to a RunInput that leaves them zero.
const (
	// DefaultApprovalTimeout is how long a pending action waits for a decision.
	DefaultApprovalTimeout = 24 * time.Hour
	// DefaultMaxSteps bounds the model calls of a run (RunInput.MaxSteps):
	// a run that reaches it without a final answer fails. Tool calls do
	// not count.
	DefaultMaxSteps = 20
	// DefaultHistoryThreshold is the history length past which a run continues as new.
	DefaultHistoryThreshold = 10000
	// DefaultInlineConversationBytes is the largest conversation (in bytes of
	// its canonical JSON) a model call carries inline; a larger one travels as
	// a ConversationRef, which keeps history bytes per model call flat. An
	// opening prompt fits; past the first tool result, whose activity already
	// recorded it, each call sends a reference, not the result again.
	DefaultInlineConversationBytes = 1 << 10
	// DefaultToolTimeout bounds one attempt of any tool call, a read or an
	// action (RunInput.ToolTimeout).
	DefaultToolTimeout = 30 * time.Second
	// DefaultAgent is the agent of a run that names none: the pull-request
	// reviewer every run was before agents had names.
	DefaultAgent = "pr-review"
)

// WithDefaults fills what the input leaves zero; a run's conversation is the
// run itself (runID) unless the input names one.
func (in RunInput) WithDefaults(runID string) RunInput {
	if in.ApprovalTimeout <= 0 {
		in.ApprovalTimeout = DefaultApprovalTimeout
	}
	if in.ToolTimeout <= 0 {
		in.ToolTimeout = DefaultToolTimeout
	}
	if in.MaxSteps <= 0 {
		in.MaxSteps = DefaultMaxSteps
	}
	if in.HistoryThreshold <= 0 {
		in.HistoryThreshold = DefaultHistoryThreshold
	}
	if in.InlineConversationBytes == 0 {
		in.InlineConversationBytes = DefaultInlineConversationBytes
	}
	if in.ConversationID == "" {
		in.ConversationID = runID
	}
	if in.Agent == "" {
		in.Agent = DefaultAgent
	}
	return in
}

// NewRun is the record of a run that starts now on this input.
func (in RunInput) NewRun(runID string, now time.Time) Run {
	return Run{
		ID: runID, ConversationID: in.ConversationID, UserID: in.UserID,
		Repo: in.Repo, PullNumber: in.PullNumber, Target: in.Target, Approvers: in.Approvers, Agent: in.Agent,
		FollowUp: in.FollowUp, Head: in.Head, ReviewedHead: in.ReviewedHead, ReviewedDraft: in.ReviewedDraft,
		PostsWithoutAsking: in.PostsWithoutAsking, Status: RunRunning, CreatedAt: now, UpdatedAt: now,
	}
}

// RunStatus is the status of an AgentRun, and the value of SearchAttrStatus.
type RunStatus string

// Run statuses.
const (
	RunRunning        RunStatus = "running"
	RunWaitingForUser RunStatus = "waiting_for_user"
	RunReconciling    RunStatus = "reconciling"
	RunCompleted      RunStatus = "completed"
	RunFailed         RunStatus = "failed"
	RunCancelled      RunStatus = "cancelled"
)

// RunStatuses lists every run status in the contract's order, for messages
// that name the choices; the lifecycle table has the same set (a test holds
// them to it).
func RunStatuses() []RunStatus {
	return []RunStatus{RunRunning, RunWaitingForUser, RunReconciling, RunCompleted, RunFailed, RunCancelled}
}

// Known reports whether s is one of the statuses above (the lifecycle table
// names each): what a listing may filter by, since the value is quoted into
// a visibility query.
func (s RunStatus) Known() bool {
	_, ok := runTransitions[s]
	return ok
}

// IsTerminal reports whether a run status is final: the lifecycle table
// lets it move nowhere.
func (s RunStatus) IsTerminal() bool { return terminal(runTransitions, s) }

// RunInput starts an AgentRun. The workflow ID is the run ID.
type RunInput struct {
	// Repo ("owner/name") and PullNumber are a pull request target's wire
	// form; a target of another kind is Target (api/target.go). RunTarget
	// reads either, WithTarget writes either.
	Repo       string  `json:"repo"`
	PullNumber int     `json:"pullNumber"`
	Target     *Target `json:"target,omitempty"`
	// InstallationID is the GitHub App installation on the pull request's
	// repository, from the delivery that started the run (installation.id)
	// or looked up by the worker in app mode when zero. It is an ID, never
	// a token: tokens are minted per call and never enter history.
	InstallationID int64 `json:"installationId,omitempty"`
	// Head is the pull request head a review started from a delivery
	// reviews; ReviewedHead the last head agentrun reviewed on the pull
	// request, when a push started it: the review then reads only the
	// change since (the compare API), or the whole pull request, saying so,
	// when ReviewedHead is no longer an ancestor. That head's review was
	// posted, or, when ReviewedDraft names its run, it was still waiting
	// for a person when the push superseded it: its draft stays on that
	// run, and the new review says so rather than reviewing it again.
	Head          string `json:"head,omitempty"`
	ReviewedHead  string `json:"reviewedHead,omitempty"`
	ReviewedDraft string `json:"reviewedDraft,omitempty"`
	// PostsWithoutAsking names the rule that lifted the agent's gate for
	// this run ("AGENTRUN_AUTO_REVIEW acme/widgets=pr-review:post"): its
	// actions run at once, none waits for a person. Only the approval
	// server sets it, when a repository's entry says post and a delivery or
	// a writer's /agentrun review starts the run; no request body, comment
	// or signal reaches it. Empty: the agent's gate applies.
	PostsWithoutAsking string `json:"postsWithoutAsking,omitempty"`
	Goal               string `json:"goal,omitempty"`
	UserID             string `json:"userId"`
	ConversationID     string `json:"conversationId,omitempty"`
	// Agent names the agent that runs (its prompt, tools and limits); empty
	// means DefaultAgent.
	Agent string `json:"agent,omitempty"`
	// Approvers are the logins allowed to decide. Empty means the target
	// kind's own source (Target.ApproverSource): for a pull request, anyone
	// with write permission on the repository (admin, maintain or write),
	// which the run asks GitHub itself for each decision (a permission_check
	// step; see workflows/policy.go). A kind without a source refuses to
	// start without approvers (CheckApprovers).
	Approvers []string `json:"approvers,omitempty"`
	// ApprovalTimeout travels as a duration string ("24h0m0s"), and so
	// does ToolTimeout (MarshalJSON).
	ApprovalTimeout time.Duration `json:"approvalTimeout,omitempty"`
	// MaxSteps bounds the run's model calls (DefaultMaxSteps when 0, or
	// the agent's own); tool calls do not count.
	MaxSteps int `json:"maxSteps,omitempty"`
	// HistoryThreshold is the history length past which the run continues as new.
	HistoryThreshold int `json:"historyThreshold,omitempty"`
	// ToolTimeout bounds one attempt of any tool call (start-to-close).
	ToolTimeout time.Duration `json:"toolTimeout,omitempty"`
	// InlineConversationBytes is the size up to which a model call carries the
	// conversation itself rather than a reference to it. Zero means
	// DefaultInlineConversationBytes; a negative value means always inline,
	// for workers without a conversation store (the testsuite's).
	InlineConversationBytes int `json:"inlineConversationBytes,omitempty"`
	// Callback, when set, is where the run delivers its result once it ends
	// (workflows/callback.go); its URL must be under AGENTRUN_CALLBACK_ALLOWED.
	Callback *Callback `json:"callback,omitempty"`
	// FollowUp, when set, is the ID of an earlier, finished run this run
	// follows up on: the run loads that run's conversation itself
	// (ActivityLoadFollowUp), so no client can hand it a forged one, and
	// refuses unless the earlier run ended on the same target and agent
	// (RefuseFollowUp). Goal is then the new message.
	FollowUp string `json:"followUp,omitempty"`
	// CheckRun, when set on a pull request run, makes the run show itself
	// as a check run on the pull request's head (api/checkrun.go,
	// workflows/checkrun.go); a worker whose GitHub credentials may not
	// write checks (a personal token) leaves the run as it would be without.
	CheckRun *CheckRunInput `json:"checkRun,omitempty"`
	// Supersedes, set by the approval server on the review of a new head,
	// names the older run's posted review this run marks superseded
	// (api/supersede.go, workflows/supersede_edit.go).
	Supersedes *SupersededReview `json:"supersedes,omitempty"`
	// Checkpoint is empty on a new run and set when the run continues as new.
	Checkpoint *Checkpoint `json:"checkpoint,omitempty"`
}

// RunInput's durations travel as Go duration strings ("24h0m0s", "5s"), so
// that the input the Temporal UI shows reads as written.

// MarshalJSON writes the durations as strings, e.g. "approvalTimeout":"24h0m0s".
func (in RunInput) MarshalJSON() ([]byte, error) {
	return json.Marshal(runInputJSON{
		runInputFields:  runInputFields(in),
		ApprovalTimeout: jsonDuration(in.ApprovalTimeout),
		ToolTimeout:     jsonDuration(in.ToolTimeout),
	})
}

// UnmarshalJSON reads the durations as strings.
func (in *RunInput) UnmarshalJSON(b []byte) error {
	var v runInputJSON
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*in = RunInput(v.runInputFields)
	in.ApprovalTimeout, in.ToolTimeout = time.Duration(v.ApprovalTimeout), time.Duration(v.ToolTimeout)
	return nil
}

// runInputJSON is RunInput with its durations as strings: the outer fields
// take precedence over the embedded ones of the same JSON name.
type runInputJSON struct {
	runInputFields
	ApprovalTimeout jsonDuration `json:"approvalTimeout,omitempty"`
	ToolTimeout     jsonDuration `json:"toolTimeout,omitempty"`
}

// runInputFields has RunInput's fields without its methods, so that
// marshalling it does not recurse.
type runInputFields RunInput

// jsonDuration is a time.Duration on the wire: a duration string (RunInput,
// Callback).
type jsonDuration time.Duration

func (d jsonDuration) MarshalJSON() ([]byte, error) {
	return json.Marshal(time.Duration(d).String())
}

func (d *jsonDuration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("duration: want a string such as \"24h\", got %s", b)
	}
	parsed, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("duration: %w", err)
	}
	*d = jsonDuration(parsed)
	return nil
}

// RunResult is what AgentRun returns when it completes.
type RunResult struct {
	Status RunStatus `json:"status"`
	Answer string    `json:"answer,omitempty"`
	Error  string    `json:"error,omitempty"`
	// Outcome is what the run did, as the run query's snapshot shows it.
	Outcome *Outcome `json:"outcome,omitempty"`
}

// Run is the AgentRun record the run query shows (the function AgentRun is the workflow).
type Run struct {
	ID             string `json:"id"`
	ConversationID string `json:"conversationId"`
	UserID         string `json:"userId"`
	Repo           string `json:"repo"`
	PullNumber     int    `json:"pullNumber"`
	// Target is a target of another kind than a pull request (RunInput's).
	Target *Target `json:"target,omitempty"`
	// TargetLabel is the target as people read it, which the run computed
	// once from its agent's declaration (tools.Agent.TargetLabel), so that
	// a process without the registry shows it; read it with TargetName.
	TargetLabel string `json:"targetLabel,omitempty"`
	Agent       string `json:"agent,omitempty"`
	// FollowUp is the earlier run of the same conversation this run follows
	// up on (RunInput.FollowUp), or empty.
	FollowUp string `json:"followUp,omitempty"`
	// Head, ReviewedHead and ReviewedDraft are RunInput's: the head a
	// review reads, the last one reviewed before it, and the run whose
	// review of that head was superseded before it was posted, if so.
	Head          string `json:"head,omitempty"`
	ReviewedHead  string `json:"reviewedHead,omitempty"`
	ReviewedDraft string `json:"reviewedDraft,omitempty"`
	// PostsWithoutAsking is RunInput's: the rule that lifted the agent's
	// gate for this run, or empty.
	PostsWithoutAsking string `json:"postsWithoutAsking,omitempty"`
	// BatchApproval: the agent takes one decision for several of its
	// waiting actions (ApprovalSignal.Batch).
	BatchApproval         bool      `json:"batchApproval,omitempty"`
	Approvers             []string  `json:"approvers,omitempty"`
	Status                RunStatus `json:"status"`
	LastCommittedSequence int64     `json:"lastCommittedSequence"`
	Version               int64     `json:"version"`
	CreatedAt             time.Time `json:"createdAt"`
	UpdatedAt             time.Time `json:"updatedAt"`
	Result                string    `json:"result,omitempty"`
	Error                 string    `json:"error,omitempty"`
	// Usage totals the tokens of every model call.
	Usage Usage `json:"usage"`
	// Generation counts how many times the run continued as new.
	Generation int `json:"generation"`
	// Outcome is OutcomeComplete, OutcomePartial or OutcomeNotDone once the
	// run completed: partial when a tool it ran failed
	// (Checkpoint.DegradedSteps; the snapshot's outcome lists them), not
	// done when the model answered that it could not do its task
	// (ModelDecision.Undone).
	Outcome string `json:"outcome,omitempty"`
}

// A completed run's Run.Outcome.
const (
	OutcomeComplete = "complete"
	OutcomePartial  = "partial"
	OutcomeNotDone  = "not_done"
)

// Checkpoint is where the loop resumes, and what continue-as-new carries: the
// workflow keeps its state in one, so a field added here is carried without
// more code. Steps and actions are pointers because the workflow changes
// them in place; their JSON is that of the values.
type Checkpoint struct {
	Run          Run          `json:"run"`
	Conversation []Message    `json:"conversation"`
	Steps        []*AgentStep `json:"steps"`
	// Events holds the most recent events; older ones are dropped to keep the
	// checkpoint bounded. EventSequence continues unbroken.
	Events        []Event `json:"events"`
	EventSequence int64   `json:"eventSequence"`
	StepSequence  int     `json:"stepSequence"`
	// Actions holds every gated action. A pending approval travels as the
	// last one, still waiting; restore resumes its wait and its timer.
	Actions []*PendingAction `json:"actions,omitempty"`
	// Label is the label at the moment of the checkpoint.
	Label string `json:"label"`
	// OpenToolCalls are the tool calls of the last model decision that have
	// not been run yet; the loop runs them before calling the model again.
	OpenToolCalls []ToolCall `json:"openToolCalls,omitempty"`
	// AwaitingResolve is the step an operator must resolve, if any.
	AwaitingResolve string `json:"awaitingResolve,omitempty"`
	// BadToolCalls counts the model's invalid tool calls in a row.
	BadToolCalls int `json:"badToolCalls,omitempty"`
	// DegradedSteps are the tool steps that ran and failed: a run that
	// completes with any is partial.
	DegradedSteps []string `json:"degradedSteps,omitempty"`
	// QueuedDecisions are decisions still waiting for their decider's
	// permission check, oldest first; the next run checks them in order.
	QueuedDecisions []ApprovalSignal `json:"queuedDecisions,omitempty"`
	// Cancel is the cancel the run accepted, if any; the run stops once
	// nothing it started is in doubt.
	Cancel *Cancellation `json:"cancel,omitempty"`
	// CancelRequestKeys are the RequestKey of every cancel request seen,
	// so that a repeat is recognised.
	CancelRequestKeys []string `json:"cancelRequestKeys,omitempty"`
	// ModelLocal is the last model answer's Local: the next model call is
	// a local activity. Carried, so that a new generation's calls stay local.
	ModelLocal bool `json:"modelLocal,omitempty"`
	// EarlierInDoubt are the actions of the run a follow-up continues whose
	// effect may exist though nobody saw it (InDoubt): the approval of any
	// action of this run on the same target shows them.
	EarlierInDoubt []InDoubtAction `json:"earlierInDoubt,omitempty"`
	// CheckRunID is the run's check run once known, and CheckHeadSHA the
	// commit it is on (RunInput.CheckRun).
	CheckRunID   int64  `json:"checkRunId,omitempty"`
	CheckHeadSHA string `json:"checkHeadSha,omitempty"`
	// SupersedeEdits are the run's edits marking a posted review
	// superseded (the older run's, RunInput.Supersedes, or its own when it
	// was superseded while posting), each recorded before it is sent.
	SupersedeEdits []*SupersedeEdit `json:"supersedeEdits,omitempty"`
}

// CheckpointView is the part of the Checkpoint the run query shows.
type CheckpointView struct {
	Generation         int   `json:"generation"`
	StepSequence       int   `json:"stepSequence"`
	EventSequence      int64 `json:"eventSequence"`
	ConversationLength int   `json:"conversationLength"`
	HistoryLength      int   `json:"historyLength"`
	HistoryThreshold   int   `json:"historyThreshold"`
}

// RunSnapshot is what QueryRun returns.
type RunSnapshot struct {
	Run Run `json:"run"`
	// Steps are the run's newest steps, at most SnapshotSteps of them, oldest
	// first, so that the query costs the same at step 10 and step 10,000.
	// StepsFrom is the index of the first of them among all StepCount steps;
	// the steps query pages through the older ones (runclient.AllSteps).
	Steps     []AgentStep `json:"steps"`
	StepsFrom int         `json:"stepsFrom"`
	StepCount int         `json:"stepCount"`
	// PendingAction is the run's most recent gated action, in whatever state
	// it is now; nil until the model proposes one.
	PendingAction *PendingAction `json:"pendingAction,omitempty"`
	// Actions lists every gated action of the run, oldest first, so that a
	// decision on an older action can be answered "already decided".
	Actions []PendingAction `json:"actions"`
	Label   string          `json:"label"`
	// AwaitingResolve is the ID of the step an operator must resolve (the
	// run could not tell whether its action happened), or empty. Clients read
	// this, or ResolveApplies, rather than the label.
	AwaitingResolve string `json:"awaitingResolve,omitempty"`
	// Cancel is who stopped the run and why, once a cancel is accepted.
	Cancel *Cancellation `json:"cancel,omitempty"`
	// EarlierInDoubt are the actions in doubt the run carries from the
	// runs it follows up (Checkpoint.EarlierInDoubt): a follow-up of it
	// carries them on (FollowUpInDoubt).
	EarlierInDoubt []InDoubtAction `json:"earlierInDoubt,omitempty"`
	Checkpoint     CheckpointView  `json:"checkpoint"`
	// Outcome is what the run has done so far; final once the run ends.
	Outcome Outcome `json:"outcome"`
}
