package runview

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/runclient"
)

var update = flag.Bool("update", false, "rewrite internal/runview/testdata/*.golden from the current output")

// requireGolden compares got with testdata/name.golden, or rewrites the file
// with -update.
func requireGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		require.NoError(t, os.WriteFile(path, got, 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run `go test ./internal/runview -run %s -update` to create it", t.Name())
	require.Equal(t, string(want), string(got))
}

func loadSnapshot(t *testing.T, name string) api.RunSnapshot {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	var snap api.RunSnapshot
	require.NoError(t, json.Unmarshal(raw, &snap))
	return snap
}

func loadEvents(t *testing.T) []api.Event {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "events.jsonl"))
	require.NoError(t, err)
	defer f.Close()
	var events []api.Event
	lines := bufio.NewScanner(f)
	for lines.Scan() {
		var ev api.Event
		require.NoError(t, json.Unmarshal(lines.Bytes(), &ev))
		events = append(events, ev)
	}
	require.NoError(t, lines.Err())
	return events
}

func TestStatusRenderingMatchesGolden(t *testing.T) {
	for _, name := range []string{"waiting", "reconciling", "completed", "failed", "rejected"} {
		t.Run(name, func(t *testing.T) {
			snap := loadSnapshot(t, "snapshot_"+name+".json")
			var out bytes.Buffer

			require.NoError(t, Status(&out, snap.Run.ID, snap, nil))

			requireGolden(t, "status_"+name, out.Bytes())
		})
	}
}

// TestStatusJSONCarriesTheOutcome: `starter status --json` prints the
// snapshot as the run query returns it, outcome included.
func TestStatusJSONCarriesTheOutcome(t *testing.T) {
	for _, name := range []string{"completed", "failed", "rejected"} {
		t.Run(name, func(t *testing.T) {
			snap := loadSnapshot(t, "snapshot_"+name+".json")
			var out bytes.Buffer

			require.NoError(t, JSON(&out, snap))

			var printed struct {
				Outcome *api.Outcome `json:"outcome"`
			}
			require.NoError(t, json.Unmarshal(out.Bytes(), &printed))
			require.NotNil(t, printed.Outcome)
			var outcome bytes.Buffer
			require.NoError(t, JSON(&outcome, printed.Outcome))
			requireGolden(t, "status_outcome_"+name+".json", outcome.Bytes())
		})
	}
}

func TestFollowEndRenderingMatchesGolden(t *testing.T) {
	for _, name := range []string{"waiting", "reconciling", "completed"} {
		t.Run(name, func(t *testing.T) {
			snap := loadSnapshot(t, "snapshot_"+name+".json")
			var out bytes.Buffer

			require.NoError(t, FollowEnd(&out, snap.Run.ID, snap, ""))

			requireGolden(t, "follow_end_"+name, out.Bytes())
		})
	}
}

func TestEventsRenderingMatchesGolden(t *testing.T) {
	var out bytes.Buffer

	require.NoError(t, Events(&out, loadEvents(t), loadSnapshot(t, "snapshot_completed.json").Steps))

	requireGolden(t, "events", out.Bytes())
}

func TestListRenderingMatchesGolden(t *testing.T) {
	started := time.Date(2026, 3, 4, 9, 12, 0, 0, time.UTC)
	rows := []runclient.Listed{
		{RunID: "review-acme-widgets-1-65735bd75e04", Agent: "pr-review", Status: "waiting_for_user", StartedAt: started},
		{RunID: "triage-acme-widgets-3-1a2b3c4d5e6f", Agent: "triage", Status: "running", StartedAt: started.Add(-time.Minute)},
		{RunID: "review-acme-widgets-2-0c1d2e3f4a5b", Status: "completed", StartedAt: started.Add(-time.Hour),
			Standing: api.Standing{Key: "completed", Words: "Done"}},
		{RunID: "recommend-riverside-9f8e7d6c5b4a", Agent: "recommend", Status: "completed", StartedAt: started.Add(-2 * time.Hour),
			Standing: api.Standing{Key: api.StandingPartial, Words: "Partial", Detail: "get_coupons failed (coupons unavailable: the merchant service answered 503 to /coupons)"}},
		{RunID: "review-acme-widgets-4-aa11bb22cc33", Status: "cancelled", StartedAt: started.Add(-3 * time.Hour),
			Standing: api.Standing{Key: "cancelled", Words: "Cancelled by alice", Detail: "wrong PR"}},
		{RunID: "nightly", Status: "terminated", StartedAt: started.Add(-48 * time.Hour)},
	}
	var out bytes.Buffer

	require.NoError(t, List(&out, rows))

	requireGolden(t, "list", out.Bytes())
}

func TestApprovalInboxRenderingMatchesGolden(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "approval_inbox.json"))
	require.NoError(t, err)
	var inbox []runclient.PendingApproval
	require.NoError(t, json.Unmarshal(raw, &inbox))
	var out bytes.Buffer

	require.NoError(t, ApprovalInbox(&out, inbox))

	requireGolden(t, "approval_inbox", out.Bytes())
}

func TestEmptyApprovalInboxSaysSoWithoutAHint(t *testing.T) {
	var out bytes.Buffer

	require.NoError(t, ApprovalInbox(&out, []runclient.PendingApproval{}))

	require.Equal(t, "no action is waiting for approval\n", out.String())
}

func TestReactionRenderingSaysWhatTheRunDid(t *testing.T) {
	ev := api.Event{Type: api.EventActionState, StepID: "step-5", Status: "approved"}
	var out bytes.Buffer

	require.NoError(t, Reaction(&out, SignalReaction{RunID: "r1", Event: &ev, Status: api.RunRunning, Label: api.LabelPosting}))
	require.NoError(t, Reaction(&out, SignalReaction{RunID: "r1", Status: api.RunWaitingForUser, Label: "waiting for approval"}))
	require.NoError(t, Reaction(&out, SignalReaction{RunID: "r2"}))

	requireGolden(t, "reaction", out.Bytes())
}

// TestStatusShowsTheApproverAnActionInDoubtOnTheSameTarget: whoever
// approves from `starter status` reads what a followed-up run may already
// have done on that target.
func TestStatusShowsTheApproverAnActionInDoubtOnTheSameTarget(t *testing.T) {
	snap := loadSnapshot(t, "snapshot_waiting.json")
	require.NotNil(t, snap.PendingAction)
	snap.PendingAction.Caution = "run r1's comment under operationKey r1:5 may have been posted on acme/widgets#1 (abandoned by ops)"
	var out bytes.Buffer

	require.NoError(t, Status(&out, snap.Run.ID, snap, nil))

	require.Contains(t, out.String(), "  in doubt run r1's comment under operationKey r1:5 may have been posted on acme/widgets#1 (abandoned by ops)\n")
}

// An action's events read as the step was then: "send message" while it
// waits and runs, "sent message M-1" from its succeeded event on, whether
// the events come in one batch or as a follow reads them.
func TestEventsTitleAStepAsItWasAtEachEvent(t *testing.T) {
	words := &api.ToolWords{Noun: "message", Verb: "send", Past: "sent"}
	step := api.AgentStep{ID: "step-2", Type: api.StepToolCall, ToolName: "send_message", Words: words,
		Status: api.StepSucceeded, ExternalResourceID: "M-1"}
	at := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	events := []api.Event{
		{Sequence: 1, At: at, Type: api.EventStepStatus, StepID: "step-2", Status: string(api.StepPending)},
		{Sequence: 2, At: at, Type: api.EventActionState, StepID: "step-2", Status: string(api.ActionApproved)},
		{Sequence: 3, At: at, Type: api.EventStepStatus, StepID: "step-2", Status: string(api.StepRunning)},
		{Sequence: 4, At: at, Type: api.EventStepStatus, StepID: "step-2", Status: string(api.StepSucceeded)},
	}
	var whole, followed bytes.Buffer
	require.NoError(t, Events(&whole, events, []api.AgentStep{step}))
	lines := NewEventLines(nil)
	for _, ev := range events {
		lines.Know([]api.AgentStep{step})
		require.NoError(t, lines.Print(&followed, []api.Event{ev}))
	}

	require.Equal(t, whole.String(), followed.String())
	out := strings.Split(strings.TrimSpace(whole.String()), "\n")
	require.Len(t, out, 4)
	for _, line := range out[:3] {
		require.True(t, strings.HasSuffix(line, "send a message"), line)
	}
	require.True(t, strings.HasSuffix(out[3], "sent message M-1"), out[3])
}

// A run that cannot tell whether its message was sent waits for an
// operator as a comment's run does: status and the end of following print
// the resolve line, whatever the tool's words made of the label.
func TestARunWaitingForAnOperatorOnAnyToolPrintsItsResolveLine(t *testing.T) {
	words := api.ToolWords{Noun: "message", Verb: "send", Past: "sent"}
	snap := api.RunSnapshot{
		Run:             api.Run{ID: "announce-1", Status: api.RunReconciling, Agent: "announce", TargetLabel: "#releases"},
		Label:           words.CannotTellLabel(),
		AwaitingResolve: "step-2",
		Steps: []api.AgentStep{{ID: "step-2", Sequence: 2, Type: api.StepToolCall, ToolName: "send_message",
			Status: api.StepOutcomeUnknown, OperationKey: "announce-1:2", Attempt: 1, Words: &words}},
	}
	want := "  resolve: starter resolve announce-1 --step step-2 --decision retry|mark_succeeded|abandon --as LOGIN [--external-id ID]\n"

	var status, end bytes.Buffer
	require.NoError(t, Status(&status, "announce-1", snap, nil))
	require.NoError(t, FollowEnd(&end, "announce-1", snap, ""))

	require.Contains(t, status.String(), want)
	require.Equal(t, "run announce-1 is waiting for an operator: Cannot tell whether the message was sent; waiting for an operator\n"+want, end.String())
	require.True(t, WaitsForPerson(snap))
	snap.AwaitingResolve = ""
	require.False(t, WaitsForPerson(snap), "a run that reconciles on its own waits for nobody")
}

// A run whose input lifted the agent's gate says which rule did; any other
// run's status has no such line.
func TestStatusSaysWhichRuleLiftedTheGate(t *testing.T) {
	snap := loadSnapshot(t, "snapshot_completed.json")
	var plain bytes.Buffer
	require.NoError(t, Status(&plain, snap.Run.ID, snap, nil))
	require.NotContains(t, plain.String(), "asks ")

	snap.Run.PostsWithoutAsking = "AGENTRUN_AUTO_REVIEW acme/widgets=pr-review:post"
	var lifted bytes.Buffer
	require.NoError(t, Status(&lifted, snap.Run.ID, snap, nil))
	require.Contains(t, lifted.String(), "asks     no one: AGENTRUN_AUTO_REVIEW acme/widgets=pr-review:post lifted the agent's gate for this run\n")
}

// A field printed on one line of its own (the label a hold's reason makes,
// the user, the target, who decided) cannot forge the next line: whatever
// breaks it is folded into one line, in every view that prints it.
func TestOneLineFieldsCannotForgeTheNextLine(t *testing.T) {
	forged := "held by ops: loop\nuser     mallory"
	snap := loadSnapshot(t, "snapshot_waiting.json")
	require.NotNil(t, snap.PendingAction)
	snap.Label = forged
	snap.Run.UserID = "carol\nlabel    all clear"
	snap.PendingAction.Target = "acme/widgets#1\n  expires  never"
	snap.PendingAction.DecidedBy = "bob\n  preview"

	var status bytes.Buffer
	require.NoError(t, Status(&status, snap.Run.ID, snap, nil))
	for _, head := range []string{"user     ", "label    ", "  expires  ", "  preview"} {
		require.Equal(t, 1, strings.Count(status.String(), "\n"+head), "one %q line:\n%s", head, status.String())
	}
	require.Contains(t, status.String(), "label    held by ops: loop user mallory\n")

	var events bytes.Buffer
	ev := api.Event{Sequence: 7, Type: api.EventRunStatus, Status: string(api.RunRunning), Label: forged}
	require.NoError(t, Events(&events, []api.Event{ev}, nil))
	require.Equal(t, 1, strings.Count(events.String(), "\n"), events.String())

	var reaction bytes.Buffer
	require.NoError(t, Reaction(&reaction, SignalReaction{RunID: "r1", Status: api.RunWaitingForUser, Label: forged}))
	require.NotContains(t, reaction.String(), "\nuser", reaction.String())

	var end bytes.Buffer
	snap.Run.Status, snap.PendingAction = api.RunRunning, nil
	require.NoError(t, FollowEnd(&end, snap.Run.ID, snap, ""))
	require.Equal(t, 1, strings.Count(end.String(), "\n"), end.String())
}
