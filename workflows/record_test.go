package workflows_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/agentrun/agentrun/agents"
	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/ghsandbox"

	"github.com/agentrun/agentrun/internal/testkit"
	"github.com/agentrun/agentrun/internal/testkit/standalone"
	"github.com/agentrun/agentrun/model/openai"
)

var record = flag.Bool("record", false, "record the replay corpus testdata/"+corpusDir+" afresh, from a real dev server")

// corpusDir is the folder of testdata that holds the replay corpus: one
// history per scenario, recorded from the current code. -record writes every
// file again; a change that alters the commands of a recorded scenario is
// recorded anew in the same commit (see docs/architecture.md, Versioning).
const corpusDir = "replay"

// recordScenario is one recorded run. Its files are named after it; a file
// name's part before the first dot names the workflow ID (record-<part>),
// which the replay test needs.
type recordScenario struct {
	name   string
	before func(t *testing.T, stack *testkit.Stack)
	input  func(*api.RunInput)
	// decide runs once the run waits for approval.
	decide func(t *testing.T, c client.Client, id, actionID string)
	// openai, when set, runs the scenario on a worker whose model is the
	// OpenAI provider answering these recorded chat completions.
	openai []standalone.Reply
	// byReference checks that the later model calls carried a conversation
	// reference, so that the recording covers the conversation query.
	byReference bool
	// chain records every run of the execution chain, oldest first, as
	// <name>.gen<N>.json, instead of the last run as <name>.json.
	chain bool
	// fails says the run ends failed rather than completed.
	fails bool
	// fixture, when set, edits the default fixture for a sandbox of the
	// scenario's own, which a worker of its own calls.
	fixture func(*ghsandbox.Fixture)
	// check runs on the completed run's last snapshot, with the sandbox
	// the run acted on.
	check func(t *testing.T, c client.Client, snap api.RunSnapshot, sandbox *ghsandbox.Server)
	// worker, when set, starts the scenario's own worker on its own queue
	// (a registry with more agents than the built-in ones).
	worker func(t *testing.T, stack *testkit.Stack, taskQueue string)
}

func recordScenarios() []recordScenario {
	approve := signal(api.DecisionApprove)
	return append([]recordScenario{
		{name: "happy", decide: func(t *testing.T, c client.Client, id, actionID string) {
			// The history of a run waiting for approval, and then its end.
			writeHistory(t, c, id, "", corpusPath("happy.waiting"))
			approve(t, c, id, actionID)
		}},
		{name: "reject", decide: signal(api.DecisionReject)},
		{name: "expire", input: func(in *api.RunInput) { in.ApprovalTimeout = 2 * time.Second }},
		{name: "reconcile", before: faults(ghsandbox.Fault{Op: "create_comment", Mode: "drop_response"}), decide: approve},
		{
			name:   "openai-happy",
			openai: []standalone.Reply{standalone.OK("pr_and_files.json"), standalone.OK("comment.json"), standalone.OK("final.json")},
			// Small enough that the calls after the first carry a reference.
			input:       func(in *api.RunInput) { in.InlineConversationBytes = 2048 },
			byReference: true,
			decide:      approve,
		},
		{
			// Two creates refused with 502: each lookup finds nothing
			// (not_created), so the same operationKey is tried again, the
			// second time after a backoff.
			name:   "not-created-retry",
			before: faults(ghsandbox.Fault{Op: "create_comment", Mode: "status", Status: 502, Count: 2}),
			decide: approve,
		},
		{
			// The create's answer is lost and the lookup answered 404: the
			// run cannot tell, waits for an operator, and the ordered retry
			// finds the comment by its marker.
			name: "cannot-tell-resolve",
			before: faults(ghsandbox.Fault{Op: "create_comment", Mode: "drop_response"},
				ghsandbox.Fault{Op: "list_comments", Mode: "status", Status: 404, After: 1}),
			decide: func(t *testing.T, c client.Client, id, actionID string) {
				approve(t, c, id, actionID)
				stepID := waitFor(t, c, id, func(snap api.RunSnapshot) (string, bool) {
					return snap.AwaitingResolve, snap.AwaitingResolve != ""
				})
				require.NoError(t, c.SignalWorkflow(context.Background(), id, "", api.SignalResolve, api.ResolveSignal{
					StepID: stepID, Decision: api.ResolveRetry, By: "ops",
				}))
			},
		},
		{
			// Decisions the run must refuse, then the one it takes: a reject
			// without a reason, a login that matches only under Unicode
			// folding, a prefix of the approver; then the approver, shouting.
			name:  "refused-decisions",
			input: func(in *api.RunInput) { in.Approvers = []string{"sam"} },
			decide: func(t *testing.T, c client.Client, id, actionID string) {
				for i, d := range []api.ApprovalSignal{
					{Decision: api.DecisionReject, Approver: "sam", Reason: "  "},
					{Decision: api.DecisionApprove, Approver: "ſam"},
					{Decision: api.DecisionApprove, Approver: "sa"},
					{Decision: api.DecisionApprove, Approver: "SAM"},
				} {
					d.ActionID, d.RequestID, d.Channel = actionID, fmt.Sprintf("%s-%d", id, i), "recording"
					require.NoError(t, c.SignalWorkflow(context.Background(), id, "", api.SignalApproval, d))
				}
			},
		},
		{
			// The pull request talks the model into writing a marker into
			// its comment: refused before anyone is asked to approve it.
			name: "openai-marker-refused",
			openai: []standalone.Reply{
				standalone.OK("pr_and_files.json"), standalone.OK("marker_comment.json"), standalone.OK("final_after_marker_refusal.json"),
			},
		},
		{
			// No approvers: a raw signal from mallory (read) is refused
			// after her permission check, then alice (admin) approves.
			name: "policy-refused",
			decide: func(t *testing.T, c client.Client, id, actionID string) {
				rawDecision(t, c, id, api.ApprovalSignal{ActionID: actionID, Decision: api.DecisionApprove, Approver: "mallory"})
				waitFor(t, c, id, func(snap api.RunSnapshot) (bool, bool) {
					return true, countPermissionChecks(snap, api.StepSucceeded) == 1
				})
				approve(t, c, id, actionID)
			},
		},
		{
			// Three decisions in one go, checked in order: mallory refused,
			// bob's reject taken, alice's approval a duplicate.
			name: "policy-queued",
			decide: func(t *testing.T, c client.Client, id, actionID string) {
				for _, d := range []api.ApprovalSignal{
					{Decision: api.DecisionApprove, Approver: "mallory"},
					{Decision: api.DecisionReject, Approver: "bob", Reason: "too harsh"},
					{Decision: api.DecisionApprove, Approver: "alice"},
				} {
					d.ActionID = actionID
					rawDecision(t, c, id, d)
				}
			},
		},
		{
			// The pull request does not exist: the run fails.
			name:  "read-failed",
			input: func(in *api.RunInput) { in.PullNumber = 99 },
			fails: true,
		},
		{
			// Triage labels the pull request without asking, then files its
			// one TODO's issue once approved; the history is also cut while
			// the issue waits.
			name:  "triage",
			input: func(in *api.RunInput) { in.Agent = agents.Triage },
			decide: func(t *testing.T, c client.Client, id, actionID string) {
				writeHistory(t, c, id, "", corpusPath("triage.waiting"))
				approve(t, c, id, actionID)
			},
			check: requireTriaged(1),
		},
		{
			// A pull request adding two TODOs: triage files two issues, each
			// its own approval, given in reverse order (the later one bound
			// to its argsHash); they are still filed in call order.
			name:    "two-approvals",
			input:   func(in *api.RunInput) { in.Agent, in.PullNumber = agents.Triage, ghsandbox.TwoTodosPull },
			fixture: ghsandbox.AddTwoTodosPull,
			decide: func(t *testing.T, c client.Client, id, _ string) {
				waiting := waitFor(t, c, id, func(snap api.RunSnapshot) ([]api.PendingAction, bool) {
					return snap.Actions, len(snap.Actions) == 2 && snap.Actions[0].State == api.ActionWaiting &&
						snap.Actions[1].State == api.ActionWaiting
				})
				for i, pa := range []api.ApprovalSignal{
					{ActionID: waiting[1].ID, ArgsHash: waiting[1].ArgsHash},
					{ActionID: waiting[0].ID},
				} {
					pa.Decision, pa.Approver, pa.RequestID, pa.Channel = api.DecisionApprove, "alice", fmt.Sprintf("%s-%d", id, i), "recording"
					require.NoError(t, c.SignalWorkflow(context.Background(), id, "", api.SignalApproval, pa))
				}
			},
			check: func(t *testing.T, c client.Client, snap api.RunSnapshot, sandbox *ghsandbox.Server) {
				requireTriaged(2)(t, c, snap, sandbox)
				require.Equal(t, []string{snap.Actions[1].StepID, snap.Actions[0].StepID}, approvedSteps(t, c, snap.Run.ID),
					"the later action was approved first")
			},
		},
		{
			// The same two issues, approved by one batch decision: both
			// parts pass every check, then both apply.
			name:    "batch",
			input:   func(in *api.RunInput) { in.Agent, in.PullNumber = agents.Triage, ghsandbox.TwoTodosPull },
			fixture: ghsandbox.AddTwoTodosPull,
			decide: func(t *testing.T, c client.Client, id, _ string) {
				waiting := waitFor(t, c, id, func(snap api.RunSnapshot) ([]api.PendingAction, bool) {
					return snap.Actions, len(snap.Actions) == 2 && snap.Actions[0].State == api.ActionWaiting &&
						snap.Actions[1].State == api.ActionWaiting
				})
				require.NoError(t, c.SignalWorkflow(context.Background(), id, "", api.SignalApproval, api.ApprovalSignal{
					ActionID: waiting[0].ID, ArgsHash: waiting[0].ArgsHash, Decision: api.DecisionApprove, Approver: "alice",
					RequestID: id, Channel: "recording", Batch: []api.ActionRef{{ActionID: waiting[1].ID, ArgsHash: waiting[1].ArgsHash}},
				}))
			},
			check: requireTriaged(2),
		},
		{
			// The run owns a check run whose first create loses its answer:
			// the retry finds it by external_id; its updater runs beside
			// the loop, and the run ends once the check shows "Done".
			name:   "check-run",
			input:  func(in *api.RunInput) { in.CheckRun = &api.CheckRunInput{} },
			before: faults(ghsandbox.Fault{Op: ghsandbox.OpCreateCheckRun, Mode: ghsandbox.ModeDropResponse}),
			decide: approve,
			check: func(t *testing.T, _ client.Client, _ api.RunSnapshot, sandbox *ghsandbox.Server) {
				var mine []ghsandbox.CheckRun
				for _, c := range sandbox.CheckRuns("acme", "widgets", "9f3c2a71d4e85b06c1f7a2d39e4b58c60a1d7e42") {
					if c.ExternalID == "record-check-run" {
						mine = append(mine, c)
					}
				}
				require.Len(t, mine, 1)
				require.Equal(t, api.ConclusionSuccess, mine[0].Conclusion)
			},
		},
		supersedeEditScenario(),
		{
			// The run continues as new while it waits (refusals grow its
			// history past the threshold); the next run restores the waiting
			// action and is approved.
			name:   "continued",
			input:  func(in *api.RunInput) { in.HistoryThreshold = 60 },
			chain:  true,
			decide: refuseUntilContinued(approve),
		},
	}, append(append(recommendScenarios(), editScenarios()...), followUpScenarios()...)...)
}

// TestRecordHistories records the replay corpus, each history from a real
// run on a dev server with the sandbox.
//
//	go test ./workflows -run TestRecordHistories -record
func TestRecordHistories(t *testing.T) {
	if !*record {
		t.Skip("recording only with -record")
	}
	const queue = "record-histories"
	require.NoError(t, os.MkdirAll(filepath.Join("testdata", corpusDir), 0o755))
	stack := testkit.StartStack(t, testkit.StackOptions{TaskQueue: queue})
	c := stack.Client()
	for _, sc := range recordScenarios() {
		t.Run(sc.name, func(t *testing.T) {
			first := corpusPath(sc.name)
			if sc.chain {
				first = corpusPath(sc.name + ".gen1")
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			in := api.RunInput{Repo: "acme/widgets", PullNumber: 1, UserID: "carol", ToolTimeout: 5 * time.Second}
			sandbox := stack.Sandbox()
			if sc.input != nil {
				sc.input(&in)
			}
			if sc.before != nil {
				sc.before(t, stack)
			}
			id := "record-" + sc.name
			defer func() {
				if t.Failed() {
					logEvents(t, c, id)
				}
			}()
			taskQueue := queue
			if sc.openai != nil {
				taskQueue = queue + "-" + sc.name
				model, err := openai.New(openai.Config{
					BaseURL: standalone.Start(t, sc.openai...).BaseURL(), APIKey: standalone.APIKey, Model: "gpt-4.1-mini",
				})
				require.NoError(t, err)
				stack.StartWorker(t, taskQueue, model)
			}
			if sc.fixture != nil {
				taskQueue = queue + "-" + sc.name
				sandbox = startSandboxWorker(t, c, taskQueue, sc.fixture)
			}
			if sc.worker != nil {
				taskQueue = queue + "-" + sc.name
				sc.worker(t, stack, taskQueue)
			}
			run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: taskQueue}, api.WorkflowName, in)
			require.NoError(t, err)
			if sc.decide != nil {
				sc.decide(t, c, id, waitForAction(t, c, id))
			}
			var res api.RunResult
			if sc.fails {
				require.Error(t, run.Get(ctx, &res))
				writeHistory(t, c, id, "", first)
				return
			}
			require.NoError(t, run.Get(ctx, &res))
			require.Equal(t, api.RunCompleted, res.Status)
			if sc.byReference {
				requireModelCallsByReference(t, c, id)
			}
			if sc.check != nil {
				snap, err := querySnapshot(c, id)
				require.NoError(t, err)
				sc.check(t, c, snap, sandbox)
			}
			if sc.chain {
				writeChain(t, c, id, sc.name)
				return
			}
			writeHistory(t, c, id, "", first)
		})
	}
}

func corpusPath(name string) string {
	return filepath.Join("testdata", corpusDir, name+".json")
}

func faults(fs ...ghsandbox.Fault) func(*testing.T, *testkit.Stack) {
	return func(t *testing.T, stack *testkit.Stack) {
		for _, f := range fs {
			require.NoError(t, stack.Sandbox().AddFault(f))
		}
	}
}

// refuseUntilContinued sends refusals, each a few more events of history,
// until the run has continued as new while still waiting, then decides.
func refuseUntilContinued(decide func(*testing.T, client.Client, string, string)) func(*testing.T, client.Client, string, string) {
	return func(t *testing.T, c client.Client, id, actionID string) {
		start := waitFor(t, c, id, func(snap api.RunSnapshot) (api.RunSnapshot, bool) { return snap, true })
		for i := 0; ; i++ {
			require.Less(t, i, 50, "the run never continued as new while waiting")
			require.NoError(t, c.SignalWorkflow(context.Background(), id, "", api.SignalRefusal, api.RefusalSignal{
				ActionID: actionID, Who: "mallory", Channel: "recording", Reason: "mallory may not approve",
			}))
			snap := waitFor(t, c, id, func(snap api.RunSnapshot) (api.RunSnapshot, bool) {
				return snap, snap.Run.LastCommittedSequence > start.Run.LastCommittedSequence+int64(i)
			})
			if snap.Run.Generation > start.Run.Generation {
				require.Equal(t, api.RunWaitingForUser, snap.Run.Status)
				require.Equal(t, api.ActionWaiting, snap.PendingAction.State, "the action waits on in the new run")
				decide(t, c, id, actionID)
				return
			}
		}
	}
}

// writeChain writes every run of id's execution chain, oldest first.
func writeChain(t *testing.T, c client.Client, id, name string) {
	desc, err := c.DescribeWorkflow(context.Background(), id, "")
	require.NoError(t, err)
	runIDs := []string{desc.WorkflowExecution.RunID}
	for {
		first := firstEvent(t, c, id, runIDs[0])
		prev := first.GetWorkflowExecutionStartedEventAttributes().GetContinuedExecutionRunId()
		if prev == "" {
			break
		}
		runIDs = append([]string{prev}, runIDs...)
	}
	require.Greater(t, len(runIDs), 1, "the run never continued as new")
	for i, runID := range runIDs {
		writeHistory(t, c, id, runID, corpusPath(fmt.Sprintf("%s.gen%d", name, i+1)))
	}
}

func firstEvent(t *testing.T, c client.Client, id, runID string) *historypb.HistoryEvent {
	iter := c.GetWorkflowHistory(context.Background(), id, runID, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	require.True(t, iter.HasNext())
	ev, err := iter.Next()
	require.NoError(t, err)
	return ev
}

// rawDecision signals a decision the way a client that skips the approval
// server does.
func rawDecision(t *testing.T, c client.Client, id string, d api.ApprovalSignal) {
	d.RequestID, d.Channel = id+"-"+d.Approver, "raw signal"
	require.NoError(t, c.SignalWorkflow(context.Background(), id, "", api.SignalApproval, d))
}

func countPermissionChecks(snap api.RunSnapshot, status api.StepStatus) int {
	n := 0
	for _, st := range snap.Steps {
		if st.IsPermissionCheck() && st.Status == status {
			n++
		}
	}
	return n
}

func countSteps(snap api.RunSnapshot, typ api.StepType, status api.StepStatus) int {
	n := 0
	for _, st := range snap.Steps {
		if st.Type == typ && st.Status == status {
			n++
		}
	}
	return n
}

func signal(decision string) func(*testing.T, client.Client, string, string) {
	return func(t *testing.T, c client.Client, id, actionID string) {
		require.NoError(t, c.SignalWorkflow(context.Background(), id, "", api.SignalApproval, api.ApprovalSignal{
			ActionID: actionID, Decision: decision, Approver: "alice", Reason: "recorded", RequestID: id,
		}))
	}
}

func waitForAction(t *testing.T, c client.Client, id string) string {
	return waitFor(t, c, id, func(snap api.RunSnapshot) (string, bool) {
		if snap.Run.Status != api.RunWaitingForUser {
			return "", false
		}
		return snap.PendingAction.ID, true
	})
}

// waitFor queries the run until ready says its snapshot is what the caller
// waits for, and returns what ready took from it.
func waitFor[T any](t *testing.T, c client.Client, id string, ready func(api.RunSnapshot) (T, bool)) T {
	t.Helper()
	var got T
	require.Eventually(t, func() bool {
		snap, err := querySnapshot(c, id)
		if err != nil {
			return false
		}
		var ok bool
		got, ok = ready(snap)
		return ok
	}, time.Minute, 50*time.Millisecond)
	return got
}

func writeHistory(t *testing.T, c client.Client, id, runID, path string) {
	iter := c.GetWorkflowHistory(context.Background(), id, runID, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	var h historypb.History
	for iter.HasNext() {
		ev, err := iter.Next()
		require.NoError(t, err)
		h.Events = append(h.Events, ev)
	}
	out, err := protojson.MarshalOptions{Multiline: true, Indent: "  "}.Marshal(&h)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, out, 0o644))
}

// requireModelCallsByReference checks that a run's later model calls carried a
// conversation reference, so that the recording covers the query path.
func requireModelCallsByReference(t *testing.T, c client.Client, id string) {
	v, err := c.QueryWorkflow(context.Background(), id, "", api.QueryRun)
	require.NoError(t, err)
	var snap api.RunSnapshot
	require.NoError(t, v.Get(&snap))
	byRef := 0
	for _, st := range snap.Steps {
		if st.Type == api.StepModelCall && strings.Contains(string(st.SafeInput), "conversationDigest") {
			byRef++
		}
	}
	require.Positive(t, byRef, "no model call carried a conversation reference")
}

// supersedeEditScenario: the review of a new head marks the older run's
// posted review superseded, the edit's first answer lost (found by the
// retry), then reviews and posts as usual.
func supersedeEditScenario() recordScenario {
	review := &api.SupersededReview{Run: "record-older"}
	return recordScenario{
		name: "supersede-edit",
		input: func(in *api.RunInput) {
			in.Head, in.Supersedes = "1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e", review
		},
		before: func(t *testing.T, stack *testkit.Stack) {
			sb := stack.Sandbox()
			c, err := sb.PostAs(ghsandbox.CommentAs{Owner: "acme", Repo: "widgets", Number: 1, User: sb.BotLogin(),
				Body: "## Review of acme/widgets#1\n\nOlder.\n\n" + api.OperationMarker("record-older:3")})
			require.NoError(t, err)
			review.CommentID = c.ID
			require.NoError(t, sb.AddFault(ghsandbox.Fault{Op: ghsandbox.OpEditComment, Mode: ghsandbox.ModeDropResponse}))
		},
		decide: signal(api.DecisionApprove),
		check: func(t *testing.T, _ client.Client, snap api.RunSnapshot, sandbox *ghsandbox.Server) {
			require.Len(t, snap.Outcome.SupersededReviews, 1)
			require.Equal(t, api.SupersedeEditFound, snap.Outcome.SupersededReviews[0].State)
			for _, c := range sandbox.Comments("acme", "widgets", 1) {
				if c.ID == review.CommentID {
					require.Equal(t, 1, c.Edits)
				}
			}
		},
	}
}
