package agentworker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/nexus-rpc/sdk-go/nexus"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/agentrun/agentrun/activities"
	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/registration"
)

// DefaultReplaySample is how many open runs a replay check replays when told
// no other number: enough to meet every scenario a busy queue has open
// (waiting, reconciling, a continue-as-new chain), few enough to take seconds.
const DefaultReplaySample = 50

// ReplayScope says which open AgentRun runs of a task queue a replay check
// samples, newest first, with the queue's holds workflow: it auto-upgrades
// (it is pinned to no build), so it moves onto a new build at its next
// workflow task and must replay there as much as any run.
type ReplayScope struct {
	TaskQueue string
	// Sample is the most runs replayed; zero means DefaultReplaySample.
	Sample int
	// Deployment and FromBuild, when FromBuild is set, limit the sample to
	// the runs pinned to that build: the ones an operator is about to move
	// onto this one with `temporal workflow update-options`.
	Deployment string
	FromBuild  string
	// UnpinnedOnly limits the sample to runs pinned to no build: the ones
	// that move to a deployment's current version as soon as it is set.
	UnpinnedOnly bool
}

// query is the visibility query of the runs s covers.
func (s ReplayScope) query() string {
	q := fmt.Sprintf(`(WorkflowType=%q OR WorkflowType=%q) AND ExecutionStatus="Running" AND TaskQueue=%q`, api.WorkflowName, api.HoldsWorkflowName, s.TaskQueue)
	if s.FromBuild != "" {
		q += fmt.Sprintf(` AND TemporalWorkerDeploymentVersion=%q`, s.Deployment+":"+s.FromBuild)
	}
	return q
}

// ReplayFailure is one sampled run whose history this build cannot replay.
type ReplayFailure struct {
	WorkflowID, RunID string
	Err               error
}

// ReplayReport is what a replay check found.
type ReplayReport struct {
	// Replayed counts the runs that replayed on this build.
	Replayed int
	Failed   []ReplayFailure
}

// Err is nil when every sampled run replayed, and a *ReplayFailedError
// naming the others otherwise.
func (r ReplayReport) Err() error {
	if len(r.Failed) == 0 {
		return nil
	}
	return &ReplayFailedError{Report: r}
}

// ReplayFailedError says which open runs do not replay on this build: moved
// onto it, each would stop at its next workflow task with a
// non-determinism error.
type ReplayFailedError struct{ Report ReplayReport }

func (e *ReplayFailedError) Error() string {
	runs := make([]string, 0, len(e.Report.Failed))
	for _, f := range e.Report.Failed {
		runs = append(runs, fmt.Sprintf("%s (run %s): %v", f.WorkflowID, f.RunID, f.Err))
	}
	return fmt.Sprintf("%d of %d sampled open runs do not replay on this build: %s",
		len(e.Report.Failed), len(e.Report.Failed)+e.Report.Replayed, strings.Join(runs, "; "))
}

// ReplayCheck replays open runs of the cluster on this build's workflow code:
// the samples' multi-history replayer, over histories listed from visibility.
type ReplayCheck struct {
	Client client.Client
	// Options carry the client's data and failure converters, so that
	// encrypted histories decode as the worker would decode them.
	Options worker.WorkflowReplayerOptions
	// Register puts the workflow on the replayer exactly as the worker
	// registers it (ReplayRegistration); a test may register another.
	Register func(worker.WorkflowRegistry)
}

// ReplayerOptions are the replayer options matching a client made with
// clientOptions: its data and failure converters.
func ReplayerOptions(clientOptions client.Options) worker.WorkflowReplayerOptions {
	return worker.WorkflowReplayerOptions{DataConverter: clientOptions.DataConverter, FailureConverter: clientOptions.FailureConverter}
}

// ReplayRegistration registers what a worker over acts registers: the
// AgentRun workflow over acts' tool registry (the workflow checks a recorded
// call against it). acts itself is left unchanged.
func ReplayRegistration(acts *activities.Activities) func(worker.WorkflowRegistry) {
	return func(r worker.WorkflowRegistry) {
		copied := *acts
		registration.Register(workflowsOnly{r}, &copied)
	}
}

// workflowsOnly lets the workers' registration run on a replayer, which
// replays recorded activity results and so takes no activities.
type workflowsOnly struct{ worker.WorkflowRegistry }

func (workflowsOnly) RegisterActivity(any)                                         {}
func (workflowsOnly) RegisterActivityWithOptions(any, activity.RegisterOptions)    {}
func (workflowsOnly) RegisterDynamicActivity(any, activity.DynamicRegisterOptions) {}
func (workflowsOnly) RegisterNexusService(*nexus.Service)                          {}

// Run replays up to scope.Sample open runs, newest first. A run that cannot
// be listed or read fails the check as a whole: a check that did not look
// must not pass.
func (rc ReplayCheck) Run(ctx context.Context, scope ReplayScope) (ReplayReport, error) {
	sample := scope.Sample
	if sample <= 0 {
		sample = DefaultReplaySample
	}
	runs, err := rc.sampleOpenRuns(ctx, scope, sample)
	if err != nil {
		return ReplayReport{}, err
	}
	var report ReplayReport
	for _, run := range runs {
		if err := rc.replay(ctx, run); err != nil {
			var readErr *historyReadError
			if errors.As(err, &readErr) {
				return ReplayReport{}, err
			}
			report.Failed = append(report.Failed, ReplayFailure{WorkflowID: run.ID, RunID: run.RunID, Err: err})
			continue
		}
		report.Replayed++
	}
	return report, nil
}

// listPageSize is how many runs one visibility page asks for.
const listPageSize = 100

func (rc ReplayCheck) sampleOpenRuns(ctx context.Context, scope ReplayScope, sample int) ([]workflow.Execution, error) {
	var runs []workflow.Execution
	var token []byte
	for {
		resp, err := rc.Client.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{
			Query: scope.query(), PageSize: listPageSize, NextPageToken: token,
		})
		if err != nil {
			return nil, fmt.Errorf("list the open runs on task queue %s: %w", scope.TaskQueue, err)
		}
		for _, info := range resp.GetExecutions() {
			run := workflow.Execution{ID: info.GetExecution().GetWorkflowId(), RunID: info.GetExecution().GetRunId()}
			if scope.UnpinnedOnly {
				pinned, err := rc.pinned(ctx, run)
				if err != nil {
					return nil, err
				}
				if pinned {
					continue
				}
			}
			runs = append(runs, run)
			if len(runs) == sample {
				return runs, nil
			}
		}
		token = resp.GetNextPageToken()
		if len(token) == 0 {
			return runs, nil
		}
	}
}

// pinned reports whether run is pinned to a build. Asked of the run itself:
// a visibility listing does not carry a run's versioning behaviour.
func (rc ReplayCheck) pinned(ctx context.Context, run workflow.Execution) (bool, error) {
	desc, err := rc.Client.DescribeWorkflowExecution(ctx, run.ID, run.RunID)
	if err != nil {
		return false, fmt.Errorf("describe %s (run %s): %w", run.ID, run.RunID, err)
	}
	versioning := desc.GetWorkflowExecutionInfo().GetVersioningInfo()
	return versioning.GetBehavior() == enumspb.VERSIONING_BEHAVIOR_PINNED || versioning.GetVersioningOverride().GetPinned() != nil, nil
}

// historyReadError is a history the check could not fetch, which says
// nothing about this build's code.
type historyReadError struct{ err error }

func (e *historyReadError) Error() string { return e.err.Error() }
func (e *historyReadError) Unwrap() error { return e.err }

func (rc ReplayCheck) replay(ctx context.Context, run workflow.Execution) error {
	history := &historypb.History{}
	iter := rc.Client.GetWorkflowHistory(ctx, run.ID, run.RunID, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for iter.HasNext() {
		event, err := iter.Next()
		if err != nil {
			return &historyReadError{fmt.Errorf("read the history of %s (run %s): %w", run.ID, run.RunID, err)}
		}
		history.Events = append(history.Events, event)
	}
	replayer, err := worker.NewWorkflowReplayerWithOptions(rc.Options)
	if err != nil {
		return &historyReadError{fmt.Errorf("make a workflow replayer: %w", err)}
	}
	rc.Register(replayer)
	// The failure is reported with its run; the SDK's own log of it is a
	// stack trace per run.
	quiet := log.NewStructuredLogger(slog.New(slog.DiscardHandler))
	return replayer.ReplayWorkflowHistoryWithOptions(quiet, history, worker.ReplayWorkflowHistoryOptions{OriginalExecution: run})
}
