package e2e

import (
	"context"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/ghsandbox"
	"github.com/agentrun/agentrun/internal/merchantsandbox"
	"github.com/agentrun/agentrun/internal/testkit"
)

// recommenderArgs are the starter arguments of make up's recommender: line
// (internal/scripts/stack.sh), without its --follow.
var recommenderArgs = []string{"start", "--agent", "recommend", "--target", "kind=recommendation_request", "--target", "city=riverside",
	"--target", "party_size=2", "--target", "budget=150", "--goal", "somewhere for two to talk, about 150, coupons welcome", "--approver", "alice"}

// readmeOutageCurl is README step 7's command that takes the coupon service down.
var readmeOutageCurl = regexp.MustCompile("`(curl [^`]*_sandbox/faults)`")

// recommenderStack is a dev server, the sandbox (GitHub and the merchant
// service) and the real worker with AGENT_MERCHANT_URL, as make up runs them.
func recommenderStack(t *testing.T) *Stack {
	t.Helper()
	s := newStack(t)
	startRecommenderWorker(t, s, map[string]string{"GITHUB_API_URL": s.Sandbox.APIURL(), "GITHUB_TOKEN": "e2e-token"})
	return s
}

// startRecommenderWorker starts the real worker on s's queue with the
// merchant service and more, its GitHub variables (none: no GitHub) and
// any other variable it sets or overrides.
func startRecommenderWorker(t *testing.T, s *Stack, more map[string]string) *Process {
	t.Helper()
	env := map[string]string{
		"TEMPORAL_ADDRESS":   s.Server.Address(),
		"AGENT_TASK_QUEUE":   s.Queue,
		"MODEL_PROVIDER":     "offline",
		"AGENT_MERCHANT_URL": s.Sandbox.base,
	}
	maps.Copy(env, more)
	w := StartProcess(t, ProcessSpec{Name: "worker-recommend", Binary: s.Bins.Worker, Env: env})
	WaitUntilPolling(t, s.Client(), s.Queue, w)
	return w
}

// recommend starts the recommender's run through the starter with extra
// arguments, approves its save as alice through the starter, and returns
// the run's result and final snapshot.
func recommend(ctx context.Context, t *testing.T, s *Stack, extra ...string) (api.RunResult, api.RunSnapshot) {
	t.Helper()
	started, err := RunCommand(ctx, s.Bins.Starter, s.StarterEnv(), append(append([]string{}, recommenderArgs...), extra...)...)
	require.NoError(t, err)
	require.Equal(t, 0, started.ExitCode, started.Stderr)
	runID := strings.TrimSpace(started.Stdout)
	waiting := WaitForStatus(t, s.Client(), runID, api.RunWaitingForUser, runTimeout)
	require.NotNil(t, waiting.PendingAction, Describe(waiting))
	require.Equal(t, "save_recommendation", waiting.PendingAction.ToolName)
	approved, err := RunCommand(ctx, s.Bins.Starter, s.StarterEnv(), "approve", runID, "--action", waiting.PendingAction.ID, "--as", "alice")
	require.NoError(t, err)
	require.Equal(t, 0, approved.ExitCode, approved.Stderr)
	res := WaitForResult(t, s.Client(), runID, runTimeout)
	snap, err := Snapshot(ctx, s.Client(), runID)
	require.NoError(t, err)
	return res, snap
}

func (s *Sandbox) recommendations(t *testing.T) []merchantsandbox.SavedRecommendation {
	t.Helper()
	var saved []merchantsandbox.SavedRecommendation
	s.getJSON(t, "/recommendations", &saved)
	return saved
}

// TestTheReadmesRecommenderWalkthroughRunsAsWrittenWithTheCouponOutage runs
// README step 7 on the real worker, starter and sandbox: the recommender
// line, approved by alice, saves one recommendation and its answer is the
// funnel; the README's curl, then the line again with --idempotency-key
// outage, completes partial, naming get_coupons, and saves one more.
func TestTheReadmesRecommenderWalkthroughRunsAsWrittenWithTheCouponOutage(t *testing.T) {
	root, err := testkit.RepoRoot()
	require.NoError(t, err)
	stack, err := os.ReadFile(filepath.Join(root, "internal", "scripts", "stack.sh"))
	require.NoError(t, err)
	for _, arg := range recommenderArgs[1:] {
		require.Contains(t, string(stack), strings.Trim(arg, "'"), "make up's recommender: line still says %s", arg)
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	require.NoError(t, err)
	curl := readmeOutageCurl.FindStringSubmatch(string(readme))
	require.NotNil(t, curl, "README step 7 gives the outage's curl")
	require.Contains(t, string(readme), "run the line again with `--idempotency-key outage`")

	s := recommenderStack(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()

	res, snap := recommend(ctx, t, s)
	require.Equal(t, api.RunCompleted, res.Status, res.Error)
	require.Equal(t, api.OutcomeComplete, snap.Run.Outcome)
	require.Contains(t, res.Answer, "10 candidates → 6 in budget → 4 with coupons → 3 chosen.")
	require.Contains(t, res.Answer, "Saved as recommendation rec-1.")
	require.Len(t, s.Sandbox.recommendations(t), 1)

	// The README's command, at the sandbox this test started.
	command := strings.Replace(curl[1], "http://127.0.0.1:9090", s.Sandbox.base, 1)
	out, err := exec.CommandContext(ctx, "bash", "-c", command+" --fail --silent --show-error").CombinedOutput()
	require.NoError(t, err, "%s: %s", command, out)

	res, snap = recommend(ctx, t, s, "--idempotency-key", "outage")
	require.Equal(t, api.RunCompleted, res.Status, res.Error)
	require.Equal(t, api.OutcomePartial, snap.Run.Outcome)
	require.Contains(t, res.Answer, "10 candidates → 6 in budget → 3 chosen.")
	require.Contains(t, res.Answer, "partial: coupons unavailable (tool get_coupons failed: ")
	status, err := RunCommand(ctx, s.Bins.Starter, s.StarterEnv(), "status", snap.Run.ID)
	require.NoError(t, err)
	require.Equal(t, 0, status.ExitCode, status.Stderr)
	require.Contains(t, status.Stdout, "completed · Partial: get_coupons failed (coupons unavailable: the merchant service answered 503",
		"starter status says partial in words, with the reason")
	saved := s.Sandbox.recommendations(t)
	require.Len(t, saved, 2, "the outage's run saves its one recommendation too")
	require.Contains(t, string(saved[1].Body), `"partial":true`)
}

// TestFaultLostSaveOfARecommendationSavesItOnce: the merchant service saves
// the approved recommendation and drops the answer; the run sends the same
// request under the same Idempotency-Key, the service answers the first
// save again, and exactly one recommendation exists, named in the answer.
func TestFaultLostSaveOfARecommendationSavesItOnce(t *testing.T) {
	s := recommenderStack(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	s.Sandbox.AddFaults(t, ghsandbox.Fault{Op: merchantsandbox.OpSaveRecommendation, Mode: ghsandbox.ModeDropResponse})

	res, snap := recommend(ctx, t, s)
	require.Equal(t, api.RunCompleted, res.Status, res.Error)
	require.Contains(t, res.Answer, "Saved as recommendation rec-1.")
	saved := s.Sandbox.recommendations(t)
	require.Len(t, saved, 1, "one recommendation, though its first answer was lost")
	saves := RequestsFor(s.Sandbox.Requests(t), merchantsandbox.OpSaveRecommendation)
	require.GreaterOrEqual(t, len(saves), 2, "the lost answer was followed by the same request again")
	require.Equal(t, ghsandbox.ModeDropResponse, saves[0].Fault)
	var step *api.AgentStep
	for i := range snap.Steps {
		if snap.Steps[i].Type == api.StepToolCall && snap.Steps[i].ToolName == "save_recommendation" {
			step = &snap.Steps[i]
		}
	}
	require.NotNil(t, step, Describe(snap))
	require.Equal(t, api.StepSucceeded, step.Status)
	require.Equal(t, saved[0].IdempotencyKey, step.OperationKey, "saved under the step's operationKey")
	require.Equal(t, "rec-1", step.ExternalResourceID)
}

// TestTheWorkerWithNoGitHubVariableServesTheRecommenderAndNeverCallsGitHub:
// the real worker started with no GitHub variable at all serves the
// recommender: the run, approved by its named approver, saves one
// recommendation, and not one request the sandbox logged was GitHub's.
func TestTheWorkerWithNoGitHubVariableServesTheRecommenderAndNeverCallsGitHub(t *testing.T) {
	s := newStack(t)
	startRecommenderWorker(t, s, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	res, snap := recommend(ctx, t, s)
	require.Equal(t, api.RunCompleted, res.Status, res.Error)
	require.Contains(t, res.Answer, "10 candidates → 6 in budget → 4 with coupons → 3 chosen.")
	require.Len(t, s.Sandbox.recommendations(t), 1)
	require.Equal(t, "alice", snap.PendingAction.DecidedBy)
	merchant := map[string]bool{merchantsandbox.OpSearchMerchants: true, merchantsandbox.OpGetMerchantDetails: true, merchantsandbox.OpGetCoupons: true,
		merchantsandbox.OpSaveRecommendation: true, merchantsandbox.OpListRecommendations: true}
	for _, r := range s.Sandbox.Requests(t) {
		require.True(t, merchant[r.Op], "a worker without GitHub asked the sandbox's GitHub: %s", r.Op)
	}
}
