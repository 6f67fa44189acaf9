package bench

// The rig of the overhead benchmarks (overhead_test.go): a dev server, the
// sandbox, an agentrun worker and a bare worker, and the two contenders.

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http/httptest"
	"runtime/pprof"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
	"google.golang.org/protobuf/proto"

	"github.com/agentrun/agentrun/activities"
	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/github"
	"github.com/agentrun/agentrun/internal/agentworker"
	"github.com/agentrun/agentrun/internal/ghsandbox"
	"github.com/agentrun/agentrun/internal/testkit"
	"github.com/agentrun/agentrun/model/offline"
	"github.com/agentrun/agentrun/runclient"
	gogithub "github.com/google/go-github/v62/github"
)

// runShape is what a run's history shows: the activities around the
// signal and the round trips.
type runShape struct {
	// Before and After are the activities scheduled before the signal and
	// after it, as the sizes of the groups one workflow task scheduled
	// together: a turn's reads run concurrently, and so must the floor's.
	Before  []int `json:"before"`
	After   []int `json:"after"`
	Signals int   `json:"signals"`
	// WorkflowTasks counts the round trips to the worker.
	WorkflowTasks int `json:"workflowTasks"`
	// Activities, Events and HistoryBytes are for the report only.
	Activities   []string `json:"activities,omitempty"`
	Events       int      `json:"events,omitempty"`
	HistoryBytes int      `json:"historyBytes,omitempty"`
	// BytesByEvent is HistoryBytes by event type, for the report only.
	BytesByEvent map[string]int `json:"bytesByEvent,omitempty"`
	// Markers counts the local activities' results.
	Markers int `json:"markers,omitempty"`
}

// bareShape is the baseline's fixed shape: agentrun's at 0.1.0 (four
// activities, the middle two together as a turn's reads, the signal, two
// more), kept as it was so that ratios across changes to agentrun's own
// shape compare with one floor. Its two together complete in one workflow
// task or in two, so it takes seven or eight.
var bareShape = runShape{Before: []int{1, 2, 1}, After: []int{1, 1}}

// byteBreakdown lists BytesByEvent, largest first.
func (s runShape) byteBreakdown() string {
	types := slices.Collect(maps.Keys(s.BytesByEvent))
	slices.SortFunc(types, func(a, b string) int { return cmp.Or(s.BytesByEvent[b]-s.BytesByEvent[a], strings.Compare(a, b)) })
	parts := make([]string, len(types))
	for i, t := range types {
		parts[i] = fmt.Sprintf("%s %d", strings.TrimPrefix(t, "EVENT_TYPE_"), s.BytesByEvent[t])
	}
	return strings.Join(parts, ", ")
}

func (s runShape) String() string {
	return fmt.Sprintf("activities %v before and %v after %d signal(s) (%s), %d local activities, %d workflow tasks; %d events, %d history bytes",
		s.Before, s.After, s.Signals, strings.Join(s.Activities, ", "), s.Markers, s.WorkflowTasks, s.Events, s.HistoryBytes)
}

// contender is one side of the comparison: run drives one run from start to
// completion, answering its approval as soon as it asks, and checks it.
type contender interface {
	name() string
	run(ctx context.Context, r runSpec) error
}

// runSpec is one run: its workflow ID, its number and how often to ask it
// whether it waits.
type runSpec struct {
	id   string
	seq  int64
	poll time.Duration
	// slowQueries counts the queries that timed out, across the rig.
	slowQueries *atomic.Int64
}

// slowQuery reports whether a query gave up waiting for the worker to
// answer, as a run query does under load (the SDK bounds each one).
func slowQuery(err error) bool {
	var deadline *serviceerror.DeadlineExceeded
	return errors.Is(err, runclient.ErrUnavailable) || errors.Is(err, context.DeadlineExceeded) || errors.As(err, &deadline)
}

// overheadRig is a dev server with a worker for each contender.
type overheadRig struct {
	// client is agentrun's and the baseline's, and what reads histories.
	client   client.Client
	server   *testkit.Server
	ghClient *gogithub.Client // over the sandbox, for the rig's other workers
	runs     *runclient.Client
	sandbox  *ghsandbox.Server
	started  atomic.Int64 // numbers runs, so every workflow ID is new
	// slowQueries counts the driver's queries that timed out and were asked again.
	slowQueries atomic.Int64
	// stickyCache is the worker's sticky cache size when the rig set one.
	stickyCache int
	// shape is what agentrun's history showed, baseShape the baseline's
	// (bareShape's).
	shape, baseShape runShape
}

func startOverheadRig(tb testing.TB) *overheadRig {
	tb.Helper()
	return startOverheadRigWithCache(tb, 0)
}

// startOverheadRigWithCache is startOverheadRig with the process's sticky
// cache sized to stickyCache runs (0 leaves it). The SDK sizes its one
// cache when a worker starts while no other is alive, as the rig's are.
func startOverheadRigWithCache(tb testing.TB, stickyCache int) *overheadRig {
	tb.Helper()
	srv := testkit.StartServer(tb, testkit.ServerOptions{})
	r := rigOn(tb, srv.Client(), stickyCache)
	r.server = srv
	return r
}

// rigOn is the rig's workers, sandbox and contenders on the engine behind
// agentClient: a dev server, or the production engine (prodengine_test.go).
func rigOn(tb testing.TB, agentClient client.Client, stickyCache int) *overheadRig {
	tb.Helper()
	sandbox := ghsandbox.New(benchFixture(tb))
	gh := httptest.NewServer(sandbox)
	tb.Cleanup(gh.Close)
	ghClient, err := github.NewClient(gh.URL, "")
	require.NoError(tb, err)

	agentWorker := agentworker.NewWorkerWithOptions(agentClient,
		agentworker.WorkerOptions{TaskQueue: agentRunQueue, StopTimeout: agentworker.DefaultStopTimeout, StickyCacheSize: stickyCache},
		// BotLogin as the worker main sets it: without it every comment
		// call would add a GET /user that production never makes.
		&activities.Activities{GitHub: github.NewAccess(ghClient, nil, sandbox.BotLogin()), Model: offline.NewReviewer()})
	// The same (default) worker options as agentworker's.
	bareWorker := worker.New(agentClient, bareQueue, worker.Options{})
	bareWorker.RegisterWorkflowWithOptions(bareApprovalShape, workflow.RegisterOptions{Name: bareWorkflowName})
	bareWorker.RegisterActivityWithOptions(bareNoop, activity.RegisterOptions{Name: bareActivityName})
	// The SDK's goroutines inherit the label of the one that starts them.
	pprof.Do(context.Background(), pprof.Labels(sideLabel, sideWorker), func(context.Context) {
		for _, w := range []worker.Worker{agentWorker, bareWorker} {
			require.NoError(tb, w.Start())
			tb.Cleanup(w.Stop)
		}
	})
	r := &overheadRig{client: agentClient, ghClient: ghClient, runs: runclient.New(agentClient, runclient.Options{}), sandbox: sandbox}
	r.stickyCache = stickyCache
	r.matchShapes(tb)
	return r
}

// benchFixture is the default fixture plus benchPulls copies of its pull
// request acme/widgets#1, the one full of findings, and webhookPulls more,
// each on a head of its own, for the webhook rows (webhook_test.go).
func benchFixture(tb testing.TB) ghsandbox.Fixture {
	tb.Helper()
	f := ghsandbox.DefaultFixture()
	repo := &f.Repos[0]
	require.Equal(tb, benchRepoOwner+"/"+benchRepoName+"#1", fmt.Sprintf("%s/%s#%d", repo.Owner, repo.Name, repo.Pulls[0].Number),
		"the default fixture's first pull request")
	for n := range benchPulls {
		pull := repo.Pulls[0]
		pull.Number = firstBenchPull + n
		pull.Comments = nil
		repo.Pulls = append(repo.Pulls, pull)
	}
	for n := range webhookPulls {
		pull := repo.Pulls[0]
		pull.Number = firstWebhookPull + n
		pull.HeadSHA = webhookPullHead(pull.Number)
		pull.Comments = nil
		repo.Pulls = append(repo.Pulls, pull)
	}
	return f
}

func (r *overheadRig) newRun(k contender, poll time.Duration) runSpec {
	seq := r.started.Add(1)
	return runSpec{id: fmt.Sprintf("%s-%d-%d", k.name(), time.Now().UnixNano(), seq), seq: seq, poll: poll, slowQueries: &r.slowQueries}
}

// runBatch starts n runs of k at once and returns their workflow IDs when
// all have completed; n = 1 is one sequential run.
func (r *overheadRig) runBatch(ctx context.Context, k contender, n int) ([]string, error) {
	poll := time.Duration(n) * time.Second / inboxQueriesPerSecond
	done := make(chan error, n)
	ids := make([]string, n)
	for i := range n {
		spec := r.newRun(k, poll)
		ids[i] = spec.id
		go pprof.Do(ctx, pprof.Labels(sideLabel, sideDriver), func(ctx context.Context) { done <- drive(ctx, k, spec) })
	}
	errs := make([]error, n)
	for i := range errs {
		errs[i] = <-done
	}
	return ids, errors.Join(errs...)
}

func drive(ctx context.Context, k contender, spec runSpec) error {
	ctx, cancel := context.WithTimeout(ctx, runTimeout)
	defer cancel()
	return k.run(ctx, spec)
}

// queryUntil asks a run every spec.poll (through ask, one query) until done
// accepts the answer. A query that arrives before the run's first workflow
// task is not an error: the run is just not ready to answer yet.
func queryUntil[T any](ctx context.Context, spec runSpec, ask func(context.Context) (T, error), done func(T) (bool, error)) (T, error) {
	tick := time.NewTicker(spec.poll)
	defer tick.Stop()
	for {
		answer, err := ask(ctx)
		var notReady *serviceerror.WorkflowNotReady
		switch {
		case errors.As(err, &notReady):
		case ctx.Err() == nil && slowQuery(err):
			// An inbox asks again later; the report counts these.
			spec.slowQueries.Add(1)
		case err != nil:
			return answer, err
		default:
			if ok, err := done(answer); ok || err != nil {
				return answer, err
			}
		}
		select {
		case <-ctx.Done():
			return answer, fmt.Errorf("query %s: still waiting: %w", spec.id, ctx.Err())
		case <-tick.C:
		}
	}
}

// shapeOf reads a closed run's history: its activities around the signal.
func shapeOf(ctx context.Context, c client.Client, id string) (runShape, error) {
	iter := c.GetWorkflowHistory(ctx, id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	var s runShape
	newGroup := true
	for iter.HasNext() {
		ev, err := iter.Next()
		if err != nil {
			return s, fmt.Errorf("history of %s: %w", id, err)
		}
		s.Events++
		s.HistoryBytes += proto.Size(ev)
		if s.BytesByEvent == nil {
			s.BytesByEvent = map[string]int{}
		}
		s.BytesByEvent[ev.GetEventType().String()] += proto.Size(ev)
		switch ev.GetEventType() {
		case enumspb.EVENT_TYPE_MARKER_RECORDED:
			s.Markers++
		case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED:
			s.Signals++
		case enumspb.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED:
			s.WorkflowTasks++
		case enumspb.EVENT_TYPE_WORKFLOW_TASK_COMPLETED:
			newGroup = true
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
			s.Activities = append(s.Activities, ev.GetActivityTaskScheduledEventAttributes().GetActivityType().GetName())
			groups := &s.Before
			if s.Signals > 0 {
				groups = &s.After
			}
			if newGroup || len(*groups) == 0 {
				*groups = append(*groups, 0)
			}
			(*groups)[len(*groups)-1]++
			newGroup = false
		}
	}
	return s, nil
}

// matchShapes runs one agentrun and one baseline and reads their shapes
// from their histories, for the report; the two runs also warm up the
// server, the workers and the sandbox.
func (r *overheadRig) matchShapes(tb testing.TB) {
	tb.Helper()
	r.shape = r.shapeOfOneRun(tb, r.agentRun())
	require.Equal(tb, 1, r.shape.Signals, "an approved run takes exactly one signal: %s", r.shape)
	require.NotEmpty(tb, r.shape.After, "shape: %s", r.shape)
	r.baseShape = r.shapeOfOneRun(tb, r.baseline())
	require.Equal(tb, bareShape.Before, r.baseShape.Before, "baseline %s", r.baseShape)
	require.Equal(tb, bareShape.After, r.baseShape.After, "baseline %s", r.baseShape)
}

func (r *overheadRig) shapeOfOneRun(tb testing.TB, k contender) runShape {
	tb.Helper()
	spec := r.newRun(k, time.Second/inboxQueriesPerSecond)
	require.NoError(tb, drive(context.Background(), k, spec))
	shape, err := shapeOf(context.Background(), r.client, spec.id)
	require.NoError(tb, err)
	return shape
}

// agentRunContender runs AgentRun with the offline reviewer against the
// sandbox, approving its comment as the approval inbox would: on the rig's
// agentrun worker, or on a variant's (variants_test.go).
type agentRunContender struct {
	rig   *overheadRig
	label string
	queue string
	c     client.Client
	runs  *runclient.Client
}

func (r *overheadRig) agentRun() agentRunContender {
	return agentRunContender{rig: r, label: "agentrun", queue: agentRunQueue, c: r.client, runs: r.runs}
}

func (k agentRunContender) name() string { return k.label }

func (k agentRunContender) run(ctx context.Context, spec runSpec) error {
	c, rc, id := k.c, k.runs, spec.id
	in := api.RunInput{
		Repo: benchRepoOwner + "/" + benchRepoName, PullNumber: firstBenchPull + int(spec.seq%benchPulls),
		UserID: "bench", ToolTimeout: 10 * time.Second,
	}
	// With the search attributes runclient.Start gives a run, which the
	// start's one visibility write carries and the run then need not
	// upsert; without its ID policies, which the baseline does not have.
	attrs := temporal.NewSearchAttributes(api.SearchAttrStatus.ValueSet(string(api.RunRunning)),
		api.SearchAttrAgent.ValueSet(api.DefaultAgent), api.SearchAttrConversation.ValueSet(id))
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: k.queue, TypedSearchAttributes: attrs}, api.WorkflowName, in)
	if err != nil {
		return fmt.Errorf("start run %s: %w", id, err)
	}
	waiting, err := awaitApprovalRequest(ctx, rc, spec)
	if err != nil {
		return err
	}
	operationKey, err := pendingOperationKey(waiting)
	if err != nil {
		return fmt.Errorf("run %s: %w", id, err)
	}
	err = rc.Decide(ctx, id, api.ApprovalSignal{
		ActionID: waiting.PendingAction.ID, Decision: api.DecisionApprove, Approver: "alice", RequestID: id,
	})
	if err != nil {
		return fmt.Errorf("approve run %s: %w", id, err)
	}
	var res api.RunResult
	if err := run.Get(ctx, &res); err != nil {
		return fmt.Errorf("run %s: %w", id, err)
	}
	if res.Status != api.RunCompleted {
		return fmt.Errorf("run %s ended %s: %s", id, res.Status, res.Error)
	}
	if n := k.rig.commentsCarrying(in.PullNumber, api.OperationMarker(operationKey)); n != 1 {
		return fmt.Errorf("run %s left %d comments with operationKey %s, want 1", id, n, operationKey)
	}
	return nil
}

// awaitApprovalRequest asks the run query until the run waits for a person.
func awaitApprovalRequest(ctx context.Context, rc *runclient.Client, spec runSpec) (api.RunSnapshot, error) {
	ask := func(ctx context.Context) (api.RunSnapshot, error) { return rc.Snapshot(ctx, spec.id) }
	return queryUntil(ctx, spec, ask, func(snap api.RunSnapshot) (bool, error) {
		switch snap.Run.Status {
		case api.RunCompleted, api.RunFailed, api.RunCancelled:
			return false, fmt.Errorf("run %s ended %s before asking for approval: %s", spec.id, snap.Run.Status, snap.Run.Error)
		}
		return snap.Run.Status == api.RunWaitingForUser, nil
	})
}

// pendingOperationKey is the operationKey the approved comment will carry.
func pendingOperationKey(snap api.RunSnapshot) (string, error) {
	if snap.PendingAction == nil {
		return "", errors.New("waits for approval without a pending action")
	}
	for _, st := range snap.Steps {
		if st.ID == snap.PendingAction.StepID && st.OperationKey != "" {
			return st.OperationKey, nil
		}
	}
	return "", fmt.Errorf("no step %s with an operationKey", snap.PendingAction.StepID)
}

func (r *overheadRig) commentsCarrying(pull int, marker string) int {
	n := 0
	for _, c := range r.sandbox.Comments(benchRepoOwner, benchRepoName, pull) {
		if strings.Contains(c.Body, marker) {
			n++
		}
	}
	return n
}

// botComments counts the comments created through the API on the bench
// pull requests.
func (r *overheadRig) botComments() int {
	n := 0
	for pull := firstBenchPull; pull < firstBenchPull+benchPulls; pull++ {
		n += r.commentsCarrying(pull, "<!-- agent-operation:")
	}
	return n
}

// baselineContender runs the bare workflow of bareShape.
type baselineContender struct {
	rig   *overheadRig
	shape runShape
}

func (r *overheadRig) baseline() baselineContender {
	return baselineContender{rig: r, shape: runShape{Before: bareShape.Before, After: bareShape.After}}
}

func (baselineContender) name() string { return "baseline" }

func (k baselineContender) run(ctx context.Context, spec runSpec) error {
	c, id := k.rig.client, spec.id
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: bareQueue}, bareWorkflowName, k.shape)
	if err != nil {
		return fmt.Errorf("start baseline %s: %w", id, err)
	}
	// The bare workflow is not an AgentRun: the run client does not know it.
	ask := func(ctx context.Context) (string, error) {
		var status string
		value, err := c.QueryWorkflow(ctx, id, "", bareQuery)
		if err != nil {
			return "", fmt.Errorf("query %s of %s: %w", bareQuery, id, err)
		}
		if err := value.Get(&status); err != nil {
			return "", fmt.Errorf("decode query %s of %s: %w", bareQuery, id, err)
		}
		return status, nil
	}
	_, err = queryUntil(ctx, spec, ask, func(status string) (bool, error) { return status == bareWaiting, nil })
	if err != nil {
		return err
	}
	if err := c.SignalWorkflow(ctx, id, "", bareSignal, api.DecisionApprove); err != nil {
		return fmt.Errorf("signal baseline %s: %w", id, err)
	}
	if err := run.Get(ctx, nil); err != nil {
		return fmt.Errorf("baseline %s: %w", id, err)
	}
	return nil
}

// bareApprovalShape is the Temporal floor of an approved run: no-op
// activities around one signal, with a query that says when it waits.
func bareApprovalShape(ctx workflow.Context, shape runShape) error {
	status := "running"
	if err := workflow.SetQueryHandler(ctx, bareQuery, func() (string, error) { return status, nil }); err != nil {
		return fmt.Errorf("register %s query: %w", bareQuery, err)
	}
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: time.Minute})
	if err := runNoops(ctx, shape.Before); err != nil {
		return err
	}
	status = bareWaiting
	var decision string
	workflow.GetSignalChannel(ctx, bareSignal).Receive(ctx, &decision)
	status = "running"
	return runNoops(ctx, shape.After)
}

// runNoops runs each group's no-op activities together, group after group.
func runNoops(ctx workflow.Context, groups []int) error {
	for g, n := range groups {
		futures := make([]workflow.Future, n)
		for i := range futures {
			futures[i] = workflow.ExecuteActivity(ctx, bareActivityName)
		}
		for i, f := range futures {
			if err := f.Get(ctx, nil); err != nil {
				return fmt.Errorf("no-op activity %d of group %d: %w", i+1, g+1, err)
			}
		}
	}
	return nil
}

func bareNoop(context.Context) error { return nil }
