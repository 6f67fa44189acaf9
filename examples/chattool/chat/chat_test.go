package chat_test

import (
	"encoding/json"
	"net/http/httptest"
	"testing"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/testsuite"

	"github.com/agentrun/agentrun/activities"
	"github.com/agentrun/agentrun/agents"
	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/examples/chattool/chat"
	"github.com/agentrun/agentrun/model/scripted"
	"github.com/agentrun/agentrun/registration"
	"github.com/agentrun/agentrun/tools"
	"github.com/agentrun/agentrun/tools/toolhttp"
)

var releases = api.Target{Kind: "chat_channel", Fields: map[string]string{"channel": "releases"}}

func start(t *testing.T, svc *service) chat.SendMessage {
	srv := httptest.NewServer(svc)
	t.Cleanup(srv.Close)
	return chat.SendMessage{Client: toolhttp.Client{BaseURL: srv.URL, HTTP: srv.Client()}}
}

// TestARunSendsOnAChannelOf100MessagesAndReconcilesALostAnswerToOneMessage
// runs the AgentRun workflow (testsuite) as the worker registers it: the
// announce agent, driven by the scripted model, sends the goal to a
// channel that already holds 100 messages, and the service makes the
// message but its answer is lost. The run's first look reaches back past
// the key, so it sends at once; its reconcile then finds the message by
// its nonce, and the step says it was found, not sent again.
func TestARunSendsOnAChannelOf100MessagesAndReconcilesALostAnswerToOneMessage(t *testing.T) {
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestWorkflowEnvironment()
	svc := newService(env.Now)
	svc.fill("releases", 100, env.Now().Add(-time.Minute))
	svc.dropNext = true
	reg, err := agents.WithoutGitHub(agents.Extension{
		Tools: []agents.ExtraTool{{Tool: start(t, svc), Gate: tools.AlwaysAsk}}, Agents: []tools.Agent{chat.Announce}})
	if err != nil {
		t.Fatal(err)
	}
	model := scripted.Model{Scripts: []scripted.Script{scripted.Then("send_message", "text")}}
	env.SetStartWorkflowOptions(client.StartWorkflowOptions{ID: "announce-1"})
	registration.Register(env, &activities.Activities{Tools: reg, Model: model})
	var preview string
	env.RegisterDelayedCallback(func() {
		snap := query[api.RunSnapshot](t, env, api.QueryRun)
		preview = snap.PendingAction.Preview
		env.SignalWorkflow(api.SignalApproval, api.ApprovalSignal{ActionID: snap.PendingAction.ID, Decision: api.DecisionApprove,
			Approver: "alice", RequestID: "r-1", ArgsHash: snap.PendingAction.ArgsHash})
	}, time.Minute)

	env.ExecuteWorkflow(api.WorkflowName, api.RunInput{Agent: "announce", Target: &releases, Goal: "Version 2.4 is out",
		UserID: "carol", Approvers: []string{"alice"}, InlineConversationBytes: -1})

	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	snap := query[api.RunSnapshot](t, env, api.QueryRun)
	if preview != `Send to #releases: "Version 2.4 is out"` || snap.Run.Status != api.RunCompleted || snap.Run.TargetName() != "#releases" {
		t.Fatalf("preview %q, status %s, target %q", preview, snap.Run.Status, snap.Run.TargetName())
	}
	var step api.AgentStep
	for _, st := range snap.Steps {
		if st.Type == api.StepToolCall && st.ToolName == "send_message" {
			step = st
		}
	}
	msgs := svc.messages("releases")
	var ours []chat.Message
	for _, m := range msgs {
		if m.Nonce == step.OperationKey {
			ours = append(ours, m)
		}
	}
	if len(msgs) != 101 || len(ours) != 1 || svc.posts != 1 || ours[0].Text != "Version 2.4 is out" {
		t.Fatalf("want one message under %s from one post among 101, got %+v after %d posts (%d messages)", step.OperationKey, ours, svc.posts, len(msgs))
	}
	if step.Status != api.StepSucceeded || step.ExternalResourceID != ours[0].ID || step.Effect != api.EffectFound || step.Attempt != 1 {
		t.Fatalf("want the step found with %s on its first attempt, got %+v", ours[0].ID, step)
	}
	p := snap.Outcome.Posted
	if len(p) != 1 || p[0].Made != "found message" || p[0].AlreadyDone != "already sent before the answer was lost" || p[0].ApprovedBy != "alice" {
		t.Fatalf("outcome %+v", snap.Outcome)
	}
}

// call is a send_message call as a run hands it to an attempt: approved,
// under its key, recorded at keyAt.
func call(t *testing.T, keyAt time.Time) tools.Call {
	c := tools.Call{Args: json.RawMessage(`{"text":"v2.4"}`), Target: releases, OperationKey: "announce-1:3", Attempt: 1, KeyRecordedAt: keyAt}
	preview, err := chat.SendMessage{}.Preview(c)
	if err != nil {
		t.Fatal(err)
	}
	c.Approved = preview
	return c
}

// A window of the latest 100 that does not reach back to the key proves
// nothing: the message may be older than all of them. Neither the look nor
// an attempt answers not_created then, and nothing is sent.
func TestAWindowThatDoesNotReachBackToTheKeyCannotTell(t *testing.T) {
	now := time.Now()
	svc := newService(time.Now)
	svc.fill("releases", 100, now)
	send := start(t, svc)

	for name, keyAt := range map[string]time.Time{"key older than the window": now.Add(-3 * time.Hour), "key time unknown": {}} {
		rec, err := send.Reconcile(t.Context(), call(t, keyAt))
		if err != nil || rec.Outcome != api.ReconcileCannotTell {
			t.Fatalf("%s: %+v, %v", name, rec, err)
		}
		if _, err := send.Execute(t.Context(), call(t, keyAt)); err == nil {
			t.Fatalf("%s: an attempt went ahead", name)
		}
	}
	if svc.posts != 0 {
		t.Fatalf("%d posts", svc.posts)
	}
	// The same channel, the key recorded after its newest message: the
	// window reaches back past it, so the first attempt sends.
	out, err := send.Execute(t.Context(), call(t, now.Add(time.Minute)))
	if err != nil || out.AlreadyExisted || svc.posts != 1 {
		t.Fatalf("%+v, %v, %d posts", out, err, svc.posts)
	}
	rec, err := send.Reconcile(t.Context(), call(t, now.Add(time.Minute)))
	if err != nil || rec.Outcome != api.ReconcileFound || rec.Output.ExternalID != out.ExternalID {
		t.Fatalf("%+v, %v", rec, err)
	}
}

// A channel of fewer messages than the window is whole: nothing under the
// key there is not_created, however recent its messages.
func TestAWholeChannelWithoutTheKeyIsNotCreated(t *testing.T) {
	svc := newService(time.Now)
	svc.fill("releases", 10, time.Now())
	rec, err := start(t, svc).Reconcile(t.Context(), call(t, time.Now().Add(-time.Hour)))
	if err != nil || rec.Outcome != api.ReconcileNotCreated {
		t.Fatalf("%+v, %v", rec, err)
	}
}

func query[T any](t *testing.T, env *testsuite.TestWorkflowEnvironment, name string) T {
	t.Helper()
	var v T
	q, err := env.QueryWorkflow(name)
	if err != nil || q.Get(&v) != nil {
		t.Fatalf("query %s: %v", name, err)
	}
	return v
}

// Anyone in the channel may write the run's nonce: a message that carries
// it with other text proves nothing, is reported as a look-alike by its ID,
// and does not stop the run's own message.
func TestAMessageWithTheNonceAndOtherTextIsALookalikeNotProof(t *testing.T) {
	svc := newService(time.Now)
	svc.fill("releases", 3, time.Now().Add(-time.Hour))
	svc.channels["releases"] = append(svc.channels["releases"], chat.Message{ID: "M-4", Text: "spam", Nonce: "announce-1:3", At: time.Now()})
	send := start(t, svc)
	c := call(t, time.Now().Add(-time.Minute))

	rec, err := send.Reconcile(t.Context(), c)
	if err != nil || rec.Outcome != api.ReconcileNotCreated || len(rec.Output.Ignored) != 1 || rec.Output.Ignored[0].ID != "M-4" {
		t.Fatalf("%+v, %v", rec, err)
	}
	out, err := send.Execute(t.Context(), c)
	if err != nil || out.AlreadyExisted || out.ExternalID != "M-5" || len(out.Ignored) != 1 || svc.posts != 1 {
		t.Fatalf("%+v, %v, %d posts", out, err, svc.posts)
	}
	rec, err = send.Reconcile(t.Context(), c)
	if err != nil || rec.Outcome != api.ReconcileFound || rec.Output.ExternalID != "M-5" {
		t.Fatalf("%+v, %v", rec, err)
	}
}
