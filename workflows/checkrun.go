package workflows

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/agentrun/agentrun/api"
)

// This file keeps a pull request run's check run (RunInput.CheckRun) in
// step with the run. A small updater per run, a workflow coroutine, owns
// the check: every event tells it the state the check should show, and it
// sends the newest one whenever it is free, so that states that came and
// went while a send was under way are never sent (coalesced). A send is
// one SyncCheckRun activity with its own retries; one that still fails is
// logged and left, the next state sending again, and a refusal (a token
// that may not write checks) ends the updates. The run's loop never waits
// for it, so a check never blocks or fails the run; only its end waits,
// a bounded time, for the final state to be shown.

// checkSendTimeout bounds one attempt of a check run update.
const checkSendTimeout = 30 * time.Second

// checkSettleTimeout bounds how long the end of a run (or of a
// generation) waits for the check to show the run's last state.
const checkSettleTimeout = 5 * time.Minute

// checkUpdater is a run's check run updater.
type checkUpdater struct {
	want    api.CheckRunSync
	sent    *api.CheckRunSync
	failed  *api.CheckRunSync
	busy    bool
	refused bool
}

// idle: nothing is being sent and nothing newer waits.
func (u *checkUpdater) idle() bool {
	if u.busy {
		return false
	}
	return u.refused || u.matches(u.sent) || u.matches(u.failed)
}

func (u *checkUpdater) matches(s *api.CheckRunSync) bool {
	return s != nil && sameCheck(*s, u.want)
}

// sameCheck: a and b show the same.
func sameCheck(a, b api.CheckRunSync) bool {
	return slices.Equal(a.Buttons, b.Buttons) && a.RunID == b.RunID && a.Repo == b.Repo && a.PullNumber == b.PullNumber &&
		a.Name == b.Name && a.HeadSHA == b.HeadSHA && a.CheckRunID == b.CheckRunID && a.Status == b.Status &&
		a.Conclusion == b.Conclusion && a.Title == b.Title && a.Summary == b.Summary && a.DetailsURL == b.DetailsURL
}

// startCheck starts the updater of a run that owns a check run.
func (w *agentRun) startCheck(ctx workflow.Context) {
	if w.in.CheckRun == nil || !w.target.IsPullRequest() {
		return
	}
	u := &checkUpdater{}
	w.check = u
	w.noteCheck()
	// Disconnected: a cancelled run still shows that it was cancelled.
	ctx, _ = workflow.NewDisconnectedContext(ctx)
	ctx = workflow.WithActivityOptions(ctx, checkSyncOptions(w.Run.TargetName()))
	workflow.Go(ctx, func(ctx workflow.Context) {
		for {
			if err := workflow.Await(ctx, func() bool { return !u.refused && !u.idle() }); err != nil {
				return
			}
			sending := u.want
			in := sending
			in.CheckRunID, in.HeadSHA = w.CheckRunID, w.checkHeadSHA()
			u.busy = true
			var got api.CheckRunSynced
			err := workflow.ExecuteActivity(ctx, api.ActivitySyncCheckRun, in).Get(ctx, &got)
			u.busy = false
			if err != nil {
				u.failed = &sending
				u.refused = isCheckRefusal(err)
				workflow.GetLogger(ctx).Warn("check run not updated", "error", err, "refused", u.refused)
				continue
			}
			u.sent, u.failed = &sending, nil
			w.CheckRunID, w.CheckHeadSHA = got.CheckRunID, got.HeadSHA
		}
	})
}

// isCheckRefusal: GitHub proved the check cannot be written (a personal
// token may not write checks; a repository outside the allowlist).
func isCheckRefusal(err error) bool {
	var app *temporal.ApplicationError
	return errors.As(err, &app) && (app.Type() == api.ErrTypeGitHubRejected || app.Type() == api.ErrTypeTargetNotAllowed)
}

func (w *agentRun) checkHeadSHA() string {
	if w.CheckHeadSHA != "" {
		return w.CheckHeadSHA
	}
	return w.in.CheckRun.HeadSHA
}

// noteCheck tells the updater the state the check should show now.
func (s *runState) noteCheck() {
	if s.check == nil {
		return
	}
	s.check.want = checkWant(&s.Checkpoint, s.in, s.heldByOps)
}

// settleCheck waits, a bounded time, until the check shows the run's last
// state (or its sends failed): the end of a run, or of a generation.
func (w *agentRun) settleCheck(ctx workflow.Context) {
	if w.check == nil || w.check.idle() {
		return
	}
	dctx, _ := workflow.NewDisconnectedContext(ctx)
	u := w.check
	if _, err := workflow.AwaitWithTimeout(dctx, checkSettleTimeout, u.idle); err != nil {
		workflow.GetLogger(ctx).Warn("check run not settled", "error", err)
	}
}

// checkWant is the state a run's check run shows: the stable label as its
// title (api.LabelHeld while an operator's hold keeps it), what the run
// does or did as its summary, and, while an action waits, Approve and
// Reject buttons bound to that action.
func checkWant(cp *api.Checkpoint, in api.RunInput, held bool) api.CheckRunSync {
	label := cp.Label
	if held {
		label = api.LabelHeld
	}
	want := api.CheckRunSync{
		RunID: cp.Run.ID, Repo: in.Repo, PullNumber: in.PullNumber, Name: api.CheckRunName(in.Agent),
		Status: api.CheckInProgress, Title: label,
	}
	if t, err := in.RunTarget(); err == nil {
		want.Repo, want.PullNumber = t.Owner+"/"+t.Repo, t.PullNumber
	}
	var b strings.Builder
	b.WriteString(fmt.Sprintf("**%s** (run status `%s`)", label, cp.Run.Status))
	if cp.Run.Status.IsTerminal() {
		want.Status = api.CheckCompleted
		want.Conclusion = api.CheckConclusion(cp.Run.Status, cp.Steps)
		// The run's error stays on its page: a check is public wherever
		// the pull request is, and an error may name internals.
	}
	if pa := firstWaiting(cp); pa != nil {
		w := api.WordsOf(pa.Words, pa.ToolName)
		b.WriteString(fmt.Sprintf("\n\nAction `%s` waits for a decision: **Approve** to %s on %s, **Reject** to %s nothing. "+
			"A writer of the repository decides; anyone else's press is refused.", pa.ID, w.Do(), pa.Target, w.Verb))
		if n := waitingCount(cp); n > 1 {
			b.WriteString(fmt.Sprintf(" %d more actions wait on the run's page.", n-1))
		}
		want.Buttons = []api.CheckButton{
			{Label: "Approve", Description: api.TruncateUTF8(capitalFirst(w.Do()), 40), Identifier: api.CheckButtonID(api.DecisionApprove, pa.ID, pa.ArgsHash)},
			{Label: "Reject", Description: api.TruncateUTF8("Do not "+w.Do(), 40), Identifier: api.CheckButtonID(api.DecisionReject, pa.ID, pa.ArgsHash)},
		}
	}
	want.Summary = b.String()
	return want
}

// firstWaiting is the oldest action still waiting, or nil.
func firstWaiting(cp *api.Checkpoint) *api.PendingAction {
	for _, pa := range cp.Actions {
		if pa.State == api.ActionWaiting {
			return pa
		}
	}
	return nil
}

func capitalFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// checkSyncOptions: a check update is retried a few times, quickly; the
// next state sends again anyway.
func checkSyncOptions(target string) workflow.ActivityOptions {
	return workflow.ActivityOptions{
		StartToCloseTimeout: checkSendTimeout,
		Summary:             "Show the run on " + target + " as a check run",
		RetryPolicy: &temporal.RetryPolicy{
			InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: 30 * time.Second, MaximumAttempts: 5,
			NonRetryableErrorTypes: []string{api.ErrTypeGitHubRejected, api.ErrTypeTargetNotAllowed},
		},
	}
}
