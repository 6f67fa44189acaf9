package bench

// What a person waits for on a pull request (issue 29): from a signed
// pull_request opened delivery to the run's check run in_progress, and from
// an Approve button delivery (check_run requested_action) to the comment
// created, each timed by the driver against the bare shape's matching wait
// (bareHalves) in the same run.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	gogithub "github.com/google/go-github/v62/github"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/github"
	"github.com/agentrun/agentrun/internal/approvalsrv"
	"github.com/agentrun/agentrun/internal/ghsandbox"
	"github.com/agentrun/agentrun/internal/testkit"
)

const (
	benchWebhookSecret = "bench-webhook-secret"
	// benchPullHead is the head of the default fixture's acme/widgets#1,
	// and so of every overhead-row copy of it.
	benchPullHead = "9f3c2a71d4e85b06c1f7a2d39e4b58c60a1d7e42"
	// webhookPulls copies of acme/widgets#1 from firstWebhookPull are the
	// webhook rows' own: a delivery's run is keyed by pull request and head,
	// so every measured delivery needs a pull request no run reviewed yet.
	// Each has a head of its own (webhookPullHead), as pull requests on
	// GitHub do: a check run lists the open pull requests at its commit,
	// and a list of check runs for a ref holds every run on it, so hundreds
	// of copies on one commit would make every check run call carry them
	// all, a cost no real pull request has.
	webhookPulls     = 64
	firstWebhookPull = 3000
	// benchApprover may write to acme/widgets in the default fixture.
	benchApprover = "bob"
	// sandboxPoll is how often the driver reads the sandbox's memory for the
	// check run or the comment: in process, so a poll costs next to nothing.
	sandboxPoll = time.Millisecond
)

// webhookRig is an approval server, on the overhead rig's runs and
// sandbox, that starts reviews of acme/widgets from its deliveries.
type webhookRig struct {
	rig        *overheadRig
	url        string
	nextPull   int
	deliveries int
}

func (r *overheadRig) startWebhookServer(tb testing.TB) *webhookRig {
	tb.Helper()
	auto, err := approvalsrv.ParseAutoReview(benchRepoOwner + "/" + benchRepoName)
	require.NoError(tb, err)
	cfg := approvalsrv.Config{
		Addr: "127.0.0.1:0", Secret: "bench-approval-secret-bench-approval-secret", WebhookSecret: benchWebhookSecret,
		TaskQueue: agentRunQueue, AutoReview: auto,
	}
	srv, err := approvalsrv.New(cfg, approvalsrv.Options{
		Runs: r.runs, Permissions: github.NewAccess(r.ghClient, nil, r.sandbox.BotLogin()), Logger: quietLogger(),
	})
	require.NoError(tb, err)
	ts := httptest.NewServer(srv.Handler())
	tb.Cleanup(ts.Close)
	return &webhookRig{rig: r, url: ts.URL + "/github/webhook", nextPull: firstWebhookPull}
}

// deliver posts a signed delivery as GitHub does and wants it accepted.
func (w *webhookRig) deliver(ctx context.Context, event string, body []byte) error {
	w.deliveries++
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-GitHub-Event", event)
	req.Header.Set("X-GitHub-Delivery", fmt.Sprintf("bench-%d-%d", time.Now().UnixNano(), w.deliveries))
	req.Header.Set("X-Hub-Signature-256", testkit.GitHubSignature(benchWebhookSecret, body))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("deliver %s: %w", event, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		return fmt.Errorf("deliver %s: %s", event, resp.Status)
	}
	return nil
}

// webhookTimes is one delivered review's two waits.
type webhookTimes struct{ toInProgress, toComment time.Duration }

// reviewFromDeliveries opens a fresh pull request by delivery, waits for
// its check run in_progress, then for its buttons, presses Approve and
// waits for the comment; it checks that the check run ends success and
// exactly one comment was posted.
func (w *webhookRig) reviewFromDeliveries(ctx context.Context) (webhookTimes, error) {
	ctx, cancel := context.WithTimeout(ctx, runTimeout)
	defer cancel()
	if w.nextPull >= firstWebhookPull+webhookPulls {
		return webhookTimes{}, fmt.Errorf("more than %d webhook reviews: the bench fixture has no fresh pull request left", webhookPulls)
	}
	pull := w.nextPull
	w.nextPull++
	repo := benchRepoOwner + "/" + benchRepoName
	head := webhookPullHead(pull)
	runID := approvalsrv.PullReviewRunID(repo, pull, head, api.DefaultAgent)
	opened, err := json.Marshal(gogithub.PullRequestEvent{
		Action: gogithub.String("opened"), Number: gogithub.Int(pull),
		PullRequest: &gogithub.PullRequest{Number: gogithub.Int(pull), State: gogithub.String("open"),
			Head: &gogithub.PullRequestBranch{SHA: gogithub.String(head)}},
		Repo:   benchRepo(),
		Sender: &gogithub.User{Login: gogithub.String(benchApprover), Type: gogithub.String("User")},
	})
	if err != nil {
		return webhookTimes{}, err
	}
	var times webhookTimes
	start := time.Now()
	if err := w.deliver(ctx, "pull_request", opened); err != nil {
		return times, err
	}
	if _, err := w.checkRun(ctx, runID, head, func(c ghsandbox.CheckRun) bool { return c.Status == "in_progress" }); err != nil {
		return times, err
	}
	times.toInProgress = time.Since(start)

	waiting, err := w.checkRun(ctx, runID, head, func(c ghsandbox.CheckRun) bool { return approveButton(c) != "" })
	if err != nil {
		return times, err
	}
	press, err := json.Marshal(gogithub.CheckRunEvent{
		Action: gogithub.String("requested_action"),
		CheckRun: &gogithub.CheckRun{ID: gogithub.Int64(waiting.ID), Name: gogithub.String(waiting.Name), HeadSHA: gogithub.String(waiting.HeadSHA),
			ExternalID: gogithub.String(waiting.ExternalID), Status: gogithub.String(waiting.Status)},
		RequestedAction: &gogithub.RequestedAction{Identifier: approveButton(waiting)},
		Repo:            benchRepo(),
		Sender:          &gogithub.User{Login: gogithub.String(benchApprover), Type: gogithub.String("User")},
	})
	if err != nil {
		return times, err
	}
	start = time.Now()
	if err := w.deliver(ctx, "check_run", press); err != nil {
		return times, err
	}
	if err := w.untilComment(ctx, pull); err != nil {
		return times, err
	}
	times.toComment = time.Since(start)
	done, err := w.checkRun(ctx, runID, head, func(c ghsandbox.CheckRun) bool { return c.Status == "completed" })
	if err != nil {
		return times, err
	}
	if done.Conclusion != "success" {
		return times, fmt.Errorf("run %s's check run completed %s: %s", runID, done.Conclusion, strings.Join(done.Shown, "; "))
	}
	if n := len(w.rig.sandbox.Comments(benchRepoOwner, benchRepoName, pull)); n != 1 {
		return times, fmt.Errorf("run %s left %d comments on #%d, want 1", runID, n, pull)
	}
	return times, nil
}

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func benchRepo() *gogithub.Repository {
	return &gogithub.Repository{FullName: gogithub.String(benchRepoOwner + "/" + benchRepoName), Name: gogithub.String(benchRepoName),
		Owner: &gogithub.User{Login: gogithub.String(benchRepoOwner)}}
}

func approveButton(c ghsandbox.CheckRun) string {
	i := slices.IndexFunc(c.Actions, func(a ghsandbox.CheckRunAction) bool { return a.Label == "Approve" })
	if i < 0 {
		return ""
	}
	return c.Actions[i].Identifier
}

// webhookPullHead is the head commit of the webhook rows' pull request
// number pull: its own, like every pull request's.
func webhookPullHead(pull int) string {
	return fmt.Sprintf("%s%08x", benchPullHead[:32], pull)
}

// checkRun reads the sandbox until the run's one check run on head
// satisfies ok.
func (w *webhookRig) checkRun(ctx context.Context, runID, head string, ok func(ghsandbox.CheckRun) bool) (ghsandbox.CheckRun, error) {
	tick := time.NewTicker(sandboxPoll)
	defer tick.Stop()
	for {
		var mine []ghsandbox.CheckRun
		for _, c := range w.rig.sandbox.CheckRuns(benchRepoOwner, benchRepoName, head) {
			if c.ExternalID == runID {
				mine = append(mine, c)
			}
		}
		switch {
		case len(mine) > 1:
			return ghsandbox.CheckRun{}, fmt.Errorf("run %s owns %d check runs, want 1", runID, len(mine))
		case len(mine) == 1 && ok(mine[0]):
			return mine[0], nil
		case len(mine) == 1 && mine[0].Status == "completed":
			return mine[0], fmt.Errorf("run %s's check run completed %s: %s", runID, mine[0].Conclusion, strings.Join(mine[0].Shown, "; "))
		}
		select {
		case <-ctx.Done():
			return ghsandbox.CheckRun{}, fmt.Errorf("run %s's check run: %w", runID, ctx.Err())
		case <-tick.C:
		}
	}
}

// untilComment reads the sandbox until the pull request has a comment.
func (w *webhookRig) untilComment(ctx context.Context, pull int) error {
	tick := time.NewTicker(sandboxPoll)
	defer tick.Stop()
	for len(w.rig.sandbox.Comments(benchRepoOwner, benchRepoName, pull)) == 0 {
		select {
		case <-ctx.Done():
			return fmt.Errorf("comment on #%d: %w", pull, ctx.Err())
		case <-tick.C:
		}
	}
	return nil
}

// bareHalves runs the bare shape once, as the baseline of both waits:
// from its start to its first activity started, and from its signal to the
// first activity after it started: the floor of a start's first side
// effect and of a decision's. The ends are the server's event times, on
// this machine's clock, so that the driver's polling of the bare run does
// not enter its figures; agentrun's include the sandbox polls'.
func (r *overheadRig) bareHalves(ctx context.Context) (webhookTimes, error) {
	ctx, cancel := context.WithTimeout(ctx, runTimeout)
	defer cancel()
	spec := r.newRun(r.baseline(), time.Second/inboxQueriesPerSecond)
	var times webhookTimes
	started := time.Now()
	run, err := r.client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: spec.id, TaskQueue: bareQueue}, bareWorkflowName, bareShape)
	if err != nil {
		return times, fmt.Errorf("start baseline %s: %w", spec.id, err)
	}
	ask := func(ctx context.Context) (string, error) {
		var status string
		value, err := r.client.QueryWorkflow(ctx, spec.id, "", bareQuery)
		if err != nil {
			return "", err
		}
		return status, value.Get(&status)
	}
	if _, err := queryUntil(ctx, spec, ask, func(status string) (bool, error) { return status == bareWaiting, nil }); err != nil {
		return times, err
	}
	signaled := time.Now()
	if err := r.client.SignalWorkflow(ctx, spec.id, "", bareSignal, api.DecisionApprove); err != nil {
		return times, fmt.Errorf("signal baseline %s: %w", spec.id, err)
	}
	if err := run.Get(ctx, nil); err != nil {
		return times, fmt.Errorf("baseline %s: %w", spec.id, err)
	}
	first, afterSignal, err := activityStarts(ctx, r.client, spec.id)
	if err != nil {
		return times, err
	}
	times.toInProgress, times.toComment = first.Sub(started), afterSignal.Sub(signaled)
	return times, nil
}

// activityStarts reads a closed run's history: when its first activity
// started, and its first after its first signal.
func activityStarts(ctx context.Context, c client.Client, id string) (first, afterSignal time.Time, err error) {
	iter := c.GetWorkflowHistory(ctx, id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	signaled := false
	for iter.HasNext() {
		ev, err := iter.Next()
		if err != nil {
			return first, afterSignal, fmt.Errorf("history of %s: %w", id, err)
		}
		switch ev.GetEventType() {
		case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED:
			signaled = true
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_STARTED:
			at := ev.GetEventTime().AsTime()
			if first.IsZero() {
				first = at
			}
			if signaled {
				return first, at, nil
			}
		}
	}
	return first, afterSignal, fmt.Errorf("run %s: no activity started after a signal", id)
}

// measureWebhookRows times n delivered reviews and n bare runs,
// interleaved, after one of each to warm the server up.
func (r *overheadRig) measureWebhookRows(t *testing.T, ctx context.Context, n int) []goalRow {
	t.Helper()
	w := r.startWebhookServer(t)
	var agent, base []webhookTimes
	for i := range n + 1 {
		a, err := w.reviewFromDeliveries(ctx)
		require.NoError(t, err)
		b, err := r.bareHalves(ctx)
		require.NoError(t, err)
		if i > 0 {
			agent, base = append(agent, a), append(base, b)
		}
	}
	pick := func(ts []webhookTimes, f func(webhookTimes) time.Duration) []time.Duration {
		out := make([]time.Duration, len(ts))
		for i, x := range ts {
			out[i] = f(x)
		}
		return out
	}
	opened := func(x webhookTimes) time.Duration { return x.toInProgress }
	pressed := func(x webhookTimes) time.Duration { return x.toComment }
	return []goalRow{
		ratioGoal(fmt.Sprintf("`pull_request` opened delivery → check run in_progress, mean ms (%d each; bare: start → first activity started)", n),
			"≤ 1.5× bare", meanMs(pick(agent, opened)), meanMs(pick(base, opened)), atMost(1.5)),
		ratioGoal(fmt.Sprintf("Approve button delivery → comment created, mean ms (%d each; bare: signal → next activity started)", n),
			"≤ 1.5× bare", meanMs(pick(agent, pressed)), meanMs(pick(base, pressed)), atMost(1.5)),
	}
}

// TestBenchWebhookRows measures only the two webhook rows of the report, to
// tune them without the whole of `make bench`:
// AGENTRUN_BENCH=full go test ./internal/bench -run TestBenchWebhookRows -v -count=1
func TestBenchWebhookRows(t *testing.T) {
	env := requireRowBench(t)
	stopProfile := startCPUProfile(t, env.cpuProfile)
	rig := startOverheadRig(t)
	rows := rig.measureWebhookRows(t, context.Background(), env.scale.webhookReviews)
	logRows(t, rows, stopProfile())
}
