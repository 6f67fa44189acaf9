package tickets

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"github.com/agentrun/agentrun/activities"
	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/registration"
	"github.com/agentrun/agentrun/tools"
	"github.com/agentrun/agentrun/tools/toolhttp"
)

// service is a tiny ticket service: POST /tickets makes a ticket (409 for an
// external_id it holds), GET /tickets?external_id=K lists the ticket of K.
// Faults: the create's answer is lost after the ticket is made, the list
// answers 503, or the list lags behind a create.
type service struct {
	mu                   sync.Mutex
	tickets              []ticket
	posts                int
	dropCreate, listDown bool
	listLags, refuse     bool
}

func (s *service) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/tickets":
		s.posts++
		var t ticket
		if err := json.NewDecoder(r.Body).Decode(&t); err != nil || t.Title == "" || t.ExternalID == "" || s.refuse {
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
		if s.dropCreate {
			s.dropCreate = false
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
			return
		}
		w.WriteHeader(http.StatusCreated)
		_ = json.NewEncoder(w).Encode(t)
	case r.Method == http.MethodGet && r.URL.Path == "/tickets":
		if s.listDown {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		found := []ticket{}
		for _, t := range s.tickets {
			if t.ExternalID == r.URL.Query().Get("external_id") && !s.listLags {
				found = append(found, t)
			}
		}
		_ = json.NewEncoder(w).Encode(found)
	default:
		http.NotFound(w, r)
	}
}

func (s *service) held() ([]ticket, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]ticket(nil), s.tickets...), s.posts
}

func start(t *testing.T, s *service) Tool {
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return Tool{Client: toolhttp.Client{BaseURL: srv.URL, HTTP: srv.Client()}}
}

var pull = api.Target{Owner: "acme", Repo: "widgets", PullNumber: 1}

// checked is a create_ticket call as the workflow checks it and hands it to
// an attempt: the registry's Check, then the step's operationKey.
func checked(t *testing.T, tool Tool, args string) tools.Call {
	t.Helper()
	reg := tools.NewRegistry()
	if err := reg.Add(tool, tools.AlwaysAsk); err != nil {
		t.Fatal(err)
	}
	agent := tools.Agent{Name: "ops", Tools: []tools.AgentTool{{Name: "create_ticket"}}}
	if err := reg.AddAgent(agent); err != nil {
		t.Fatal(err)
	}
	c, refusal := reg.Check(agent, api.ToolCall{ID: "c", Name: "create_ticket", Arguments: json.RawMessage(args)}, pull)
	if refusal != "" {
		t.Fatal(refusal)
	}
	c.Call.OperationKey, c.Call.Approved = "run-1:3", c.Preview
	return c.Call
}

const flaky = `{"title":"Flaky test","body":"TestCache fails one run in ten."}`

func TestARetryAfterALostCreateFindsTheTicketAndNeverMakesASecond(t *testing.T) {
	svc := &service{dropCreate: true}
	tool := start(t, svc)
	call := checked(t, tool, flaky)

	_, err := tool.Execute(t.Context(), call)
	var appErr *temporal.ApplicationError
	if err == nil || errors.As(err, &appErr) {
		t.Fatalf("a lost answer must leave the outcome unknown (a plain error), got %v", err)
	}
	res, err := tool.Reconcile(t.Context(), call)
	if err != nil || res.Outcome != api.ReconcileFound || res.Output.ExternalID != "T-1001" {
		t.Fatalf("reconcile: %+v, %v", res, err)
	}
	// An operator's retry sends the step round without a reconcile: the
	// attempt's own look is what keeps it to one ticket.
	out, err := tool.Execute(t.Context(), call)
	if err != nil || !out.AlreadyExisted || out.ExternalID != "T-1001" {
		t.Fatalf("retry: %+v, %v", out, err)
	}
	held, posts := svc.held()
	if len(held) != 1 || posts != 1 || held[0].ExternalID != "run-1:3" {
		t.Fatalf("want one ticket under run-1:3 from one create, got %+v after %d creates", held, posts)
	}
}

func TestAReconcileThatCannotLookNeverSaysNotCreated(t *testing.T) {
	svc := &service{listDown: true}
	tool := start(t, svc)
	call := checked(t, tool, flaky)
	if res, err := tool.Reconcile(t.Context(), call); err == nil {
		t.Fatalf("a list answering 503 gave %+v", res)
	}
	svc.listDown = false
	svc.tickets = []ticket{{ID: "T-9", Title: "Something else", Body: "x", ExternalID: "run-1:3"}}
	if res, err := tool.Reconcile(t.Context(), call); err == nil {
		t.Fatalf("a ticket under the key with other text proved %+v", res)
	}
	if _, err := tool.Execute(t.Context(), call); err == nil {
		t.Fatal("an attempt went ahead past a ticket under its key with other text")
	}
	if _, posts := svc.held(); posts != 0 {
		t.Fatalf("%d creates", posts)
	}
}

func TestOnlyARefusalThatProvesNothingWasMadeFailsTheStep(t *testing.T) {
	svc := &service{listLags: true, tickets: []ticket{{ID: "T-1001", Title: "Flaky test", Body: "x", ExternalID: "run-1:3"}}}
	tool := start(t, svc)
	_, err := tool.Execute(t.Context(), checked(t, tool, flaky))
	var appErr *temporal.ApplicationError
	if err == nil || errors.As(err, &appErr) {
		t.Fatalf("a 409 is an earlier attempt's ticket, not a refusal: got %v", err)
	}
	svc.listLags, svc.refuse = false, true
	refused := checked(t, tool, flaky)
	refused.OperationKey = "run-1:4"
	_, err = tool.Execute(t.Context(), refused)
	if !errors.As(err, &appErr) || appErr.Type() != api.ErrTypeToolRejected {
		t.Fatalf("a 400 proves nothing was made: want a rejection, got %v", err)
	}
	other := checked(t, tool, flaky)
	other.Approved = "Create ticket \"Flaky test\" with body \"something else\""
	if _, err := tool.Execute(t.Context(), other); !errors.As(err, &appErr) || appErr.Type() != api.ErrTypeToolRejected {
		t.Fatalf("a call that is not the approved one: want a rejection, got %v", err)
	}
	if held, _ := svc.held(); len(held) != 1 {
		t.Fatalf("want the one ticket, got %+v", held)
	}
}

// fileOnce is a model that asks for one ticket, then answers.
type fileOnce struct{}

func (fileOnce) Next(_ context.Context, conv []api.Message, _ []api.ToolSpec) (api.ModelDecision, error) {
	for _, m := range conv {
		if m.Role == api.RoleTool {
			return api.ModelDecision{Final: "filed: " + m.Content}, nil
		}
	}
	return api.ModelDecision{ToolCalls: []api.ToolCall{{ID: "t", Name: "create_ticket", Arguments: json.RawMessage(flaky)}}}, nil
}

// TestARunWhoseCreateAnswerIsLostReconcilesToTheOneTicket runs the AgentRun
// workflow itself (testsuite) over the tool: the service makes the ticket and
// drops the connection, and the step ends succeeded with the ticket's ID,
// found by its external_id, after one create. The gate is NeverAsk here:
// approval is not what this test attacks.
func TestARunWhoseCreateAnswerIsLostReconcilesToTheOneTicket(t *testing.T) {
	svc := &service{dropCreate: true}
	snap, _ := runLostCreate(t, svc)
	var step *api.AgentStep
	for i := range snap.Steps {
		if snap.Steps[i].ToolName == "create_ticket" {
			step = &snap.Steps[i]
		}
	}
	held, posts := svc.held()
	if step == nil || step.Status != api.StepSucceeded || step.ExternalResourceID != "T-1001" {
		t.Fatalf("want the step succeeded with T-1001, got %+v", step)
	}
	if len(held) != 1 || posts != 1 || held[0].ExternalID != step.OperationKey {
		t.Fatalf("want one ticket under %s from one create, got %+v after %d creates", step.OperationKey, held, posts)
	}
	if step.Error != "" {
		t.Fatalf("a succeeded step shows no error, got %q", step.Error)
	}
}

// TestATicketRunsWordsAreATicketsNeverAComments: the tool gives no words,
// so they come from its name, and the run's labels, events and outcome say
// what it did with the ID the service gave.
func TestATicketRunsWordsAreATicketsNeverAComments(t *testing.T) {
	snap, events := runLostCreate(t, &service{dropCreate: true})
	var labels []string
	for _, e := range events {
		labels = append(labels, e.Label)
		if strings.Contains(strings.ToLower(e.Label+e.Detail), "comment") {
			t.Errorf("event %d says comment: %+v", e.Sequence, e)
		}
	}
	joined := strings.Join(labels, "|")
	for _, want := range []string{"Creating the ticket", "Checking whether the ticket was already created"} {
		if !strings.Contains(joined, want) {
			t.Errorf("no label %q in %s", want, joined)
		}
	}
	o := snap.Outcome
	// The lost create's ticket was found, not made again, and says so.
	if len(o.Posted) != 1 || o.Posted[0].Made != "found ticket" || o.Posted[0].ExternalID != "T-1001" || o.Posted[0].CommentID != 0 ||
		o.Posted[0].Effect != api.EffectFound || o.Posted[0].AlreadyDone != "already created before the answer was lost" {
		t.Fatalf("want found ticket T-1001, already created before the answer was lost, got %+v", o.Posted)
	}
	if !strings.HasPrefix(o.Summary, "Created 1 ticket on ") || strings.Contains(strings.ToLower(o.Summary), "comment") {
		t.Fatalf("summary %q", o.Summary)
	}
}

// runLostCreate runs the AgentRun workflow over the tool against svc, and
// answers the run's snapshot and events.
func runLostCreate(t *testing.T, svc *service) (api.RunSnapshot, []api.Event) {
	t.Helper()
	reg := tools.NewRegistry()
	if err := reg.Add(start(t, svc), tools.NeverAsk); err != nil {
		t.Fatal(err)
	}
	if err := reg.AddAgent(tools.Agent{Name: "ops", Tools: []tools.AgentTool{{Name: "create_ticket"}}}); err != nil {
		t.Fatal(err)
	}
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestWorkflowEnvironment()
	env.SetStartWorkflowOptions(client.StartWorkflowOptions{ID: "run-ticket"})
	registration.Register(env, &activities.Activities{Tools: reg, Model: fileOnce{}})

	env.ExecuteWorkflow(api.WorkflowName, api.RunInput{Repo: "acme/widgets", PullNumber: 1, UserID: "carol", Agent: "ops", InlineConversationBytes: -1})

	var res api.RunResult
	if err := env.GetWorkflowError(); err != nil || env.GetWorkflowResult(&res) != nil || res.Status != api.RunCompleted {
		t.Fatalf("run: %+v, %v", res, err)
	}
	q, err := env.QueryWorkflow(api.QueryRun)
	var snap api.RunSnapshot
	if err != nil || q.Get(&snap) != nil {
		t.Fatalf("query the run: %v", err)
	}
	q, err = env.QueryWorkflow(api.QueryEvents, int64(0))
	var events []api.Event
	if err != nil || q.Get(&events) != nil {
		t.Fatalf("query the events: %v", err)
	}
	return snap, events
}
