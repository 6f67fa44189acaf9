package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/runview"
	"github.com/agentrun/agentrun/internal/testkit"
)

// ticketService is the example's ticket service as create_ticket calls it
// (examples/customtool/tickets): POST /tickets makes a ticket (409 for an
// external_id it holds), GET /tickets?external_id=K lists K's tickets. With
// dropNextCreate it makes the next ticket and then closes the connection
// unanswered: the lost response.
type ticketService struct {
	mu             sync.Mutex
	tickets        []exampleTicket
	creates        int
	dropNextCreate bool
}

type exampleTicket struct {
	ID         string `json:"id"`
	Title      string `json:"title"`
	Body       string `json:"body"`
	ExternalID string `json:"external_id"`
	URL        string `json:"url"`
}

func (s *ticketService) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/tickets":
		s.creates++
		var t exampleTicket
		if err := json.NewDecoder(r.Body).Decode(&t); err != nil || t.Title == "" || t.ExternalID == "" {
			http.Error(w, "bad ticket", http.StatusBadRequest)
			return
		}
		for _, held := range s.tickets {
			if held.ExternalID == t.ExternalID {
				http.Error(w, "external_id taken", http.StatusConflict)
				return
			}
		}
		t.ID = fmt.Sprintf("T-%d", 1001+len(s.tickets))
		t.URL = "https://tickets.example/" + t.ID
		s.tickets = append(s.tickets, t)
		if s.dropNextCreate {
			s.dropNextCreate = false
			if conn, _, err := w.(http.Hijacker).Hijack(); err == nil {
				conn.Close()
			}
			return
		}
		w.WriteHeader(http.StatusCreated)
		_ = json.NewEncoder(w).Encode(t)
	case r.Method == http.MethodGet && r.URL.Path == "/tickets":
		found := []exampleTicket{}
		for _, t := range s.tickets {
			if t.ExternalID == r.URL.Query().Get("external_id") {
				found = append(found, t)
			}
		}
		_ = json.NewEncoder(w).Encode(found)
	default:
		http.NotFound(w, r)
	}
}

func (s *ticketService) held() ([]exampleTicket, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]exampleTicket(nil), s.tickets...), s.creates
}

// saysCommentOrPR is the first word of text that speaks of a comment or a
// pull request, or "": a ticket run made a ticket, on a queue.
func saysCommentOrPR(text string) string {
	lower := strings.ToLower(text)
	for _, w := range []string{"comment", "pull request", "pull_request", " pr ", "acme/widgets", "#1"} {
		if strings.Contains(" "+lower+" ", w) {
			return w
		}
	}
	return ""
}

// TestAWorkerWithoutGitHubFilesOneTicketAfterALostResponseApprovedByTheNamedApprover
// is issue 22's "done when" through real processes: a dev server, the ticket
// service, and the example's worker with no GitHub variable at all (no
// token, no sandbox). A start of the tickets agent without --approver is
// refused saying so; one with --approver alice waits for her, refuses
// mallory's approval, and after alice's the service makes the ticket and
// drops the answer. The run reconciles by natural key: one ticket exists,
// the step holds its ID, alice approved it, and nothing the run says
// (labels, step titles, outcome, starter status) speaks of a comment or a
// pull request.
func TestAWorkerWithoutGitHubFilesOneTicketAfterALostResponseApprovedByTheNamedApprover(t *testing.T) {
	bin := exampleBinary(t)
	starter := builder.Binaries(t).Starter
	server := testkit.StartServer(t, testkit.ServerOptions{})
	svc := &ticketService{}
	tickets := httptest.NewServer(svc)
	t.Cleanup(tickets.Close)

	const queue = "agent-runs-tickets"
	worker := StartProcess(t, ProcessSpec{Name: "customtool-nogithub", Binary: bin, Env: map[string]string{
		"TEMPORAL_ADDRESS": server.Address(),
		"AGENT_TASK_QUEUE": queue,
		"TICKETS_URL":      tickets.URL,
	}})
	WaitUntilPolling(t, server.Client(), queue, worker)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	env := map[string]string{"TEMPORAL_ADDRESS": server.Address(), "AGENT_TASK_QUEUE": queue, "USER": "carol"}
	starterRun := func(args ...string) CommandResult {
		t.Helper()
		res, err := RunCommand(ctx, starter, env, args...)
		require.NoError(t, err)
		return res
	}
	start := []string{"start", "--agent", "tickets", "--target", "kind=support_queue", "--target", "queue=support",
		"--goal", "Flaky test in the cache", "--json"}

	refused := starterRun(start...)
	require.NotEqual(t, 0, refused.ExitCode, "a start without approvers is refused: %s", refused.Stdout)
	require.Contains(t, refused.Stderr, "the run needs named approvers")
	require.Contains(t, refused.Stderr, "--approver")
	listed := starterRun("list", "--agent", "tickets", "--json")
	require.Equal(t, 0, listed.ExitCode, listed.Stderr)
	var runsListed []json.RawMessage
	require.NoError(t, json.Unmarshal([]byte(listed.Stdout), &runsListed), listed.Stdout)
	require.Empty(t, runsListed, "the refused start started nothing")

	svc.mu.Lock()
	svc.dropNextCreate = true
	svc.mu.Unlock()
	started := starterRun(append(start, "--approver", "alice")...)
	require.Equal(t, 0, started.ExitCode, started.Stderr)
	var run struct {
		RunID string `json:"runId"`
	}
	require.NoError(t, json.Unmarshal([]byte(started.Stdout), &run), started.Stdout)
	waiting := WaitForStatus(t, server.Client(), run.RunID, api.RunWaitingForUser, runTimeout)
	require.NotNil(t, waiting.PendingAction, Describe(waiting))
	require.Equal(t, "create_ticket", waiting.PendingAction.ToolName)
	require.Equal(t, `Create ticket "Flaky test in the cache" with body "File the ticket of support_queue queue=support."`,
		waiting.PendingAction.Preview)

	// Someone the run does not name is refused, and nothing is made.
	mallory := starterRun("approve", run.RunID, "--action", waiting.PendingAction.ID, "--as", "mallory")
	require.NotEqual(t, 0, mallory.ExitCode, "mallory is no approver of this run: %s", mallory.Stdout)
	still, err := Snapshot(ctx, server.Client(), run.RunID)
	require.NoError(t, err)
	require.Equal(t, api.RunWaitingForUser, still.Run.Status, Describe(still))
	_, creates := svc.held()
	require.Zero(t, creates, "nothing is created before the named approver approves")

	approved := starterRun("approve", run.RunID, "--action", waiting.PendingAction.ID, "--as", "alice")
	require.Equal(t, 0, approved.ExitCode, approved.Stderr)
	res := WaitForResult(t, server.Client(), run.RunID, runTimeout)
	require.Equal(t, api.RunCompleted, res.Status)

	held, creates := svc.held()
	require.Len(t, held, 1, "exactly one ticket")
	require.Equal(t, 1, creates, "the ticket was created once; the lost answer was reconciled, not resent")
	snap, err := Snapshot(ctx, server.Client(), run.RunID)
	require.NoError(t, err)
	var step *api.AgentStep
	for i := range snap.Steps {
		if snap.Steps[i].Type == api.StepToolCall && snap.Steps[i].ToolName == "create_ticket" {
			step = &snap.Steps[i]
		}
	}
	require.NotNil(t, step, Describe(snap))
	require.Equal(t, api.StepSucceeded, step.Status)
	require.Equal(t, held[0].ID, step.ExternalResourceID)
	require.True(t, strings.HasPrefix(step.ExternalResourceID, "T-"), step.ExternalResourceID)
	require.Equal(t, step.OperationKey, held[0].ExternalID, "the ticket carries the step's operationKey")
	require.Contains(t, string(step.SafeOutput), `"alreadyExisted":true`, "found by its natural key")
	events := MustEvents(t, server.Client(), run.RunID)
	require.True(t, HasEvent(events, api.EventRunStatus, string(api.RunReconciling)), "the lost response was reconciled")
	require.Equal(t, api.ActionApproved, snap.PendingAction.State)
	require.Equal(t, "alice", snap.PendingAction.DecidedBy)
	require.Len(t, snap.Outcome.Posted, 1)
	require.Equal(t, "alice", snap.Outcome.Posted[0].ApprovedBy)
	require.Equal(t, "found ticket", snap.Outcome.Posted[0].Made, "the lost answer's ticket was found, not made")
	require.Equal(t, api.EffectFound, step.Effect)

	status := starterRun("status", run.RunID)
	require.Equal(t, 0, status.ExitCode, status.Stderr)
	require.Contains(t, status.Stdout, "found ticket "+held[0].ID+" (already created before the answer was lost)")
	require.Contains(t, status.Stdout, "target   support queue\n", "the queue reads as its agent labels it")
	require.NotRegexp(t, `#0\b`, status.Stdout)
	require.Equal(t, "support queue", snap.Run.TargetLabel, "the run recorded its label, for views without the registry")
	texts := map[string]string{"outcome": snap.Outcome.Summary, "made": snap.Outcome.Posted[0].Made, "starter status": status.Stdout}
	for _, e := range events {
		texts[fmt.Sprintf("event %d label", e.Sequence)] = e.Label
	}
	for _, st := range snap.Steps {
		texts["step "+st.ID+" title"] = runview.StepTitle(st)
	}
	for where, text := range texts {
		require.Empty(t, saysCommentOrPR(text), "%s says %q", where, text)
	}
}
