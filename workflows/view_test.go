package workflows

import (
	"fmt"
	"testing"

	"github.com/agentrun/agentrun/api"
)

func checkpointWithSteps(n int) *api.Checkpoint {
	cp := &api.Checkpoint{}
	for i := range n {
		cp.Steps = append(cp.Steps, &api.AgentStep{ID: fmt.Sprintf("step-%d", i+1), Sequence: i + 1, Type: api.StepModelCall})
	}
	return cp
}

func stepIDs(steps []api.AgentStep) []string {
	ids := make([]string, len(steps))
	for i, st := range steps {
		ids[i] = st.ID
	}
	return ids
}

func TestSnapshotOfALongRunCarriesItsNewestStepsAndTheirPlace(t *testing.T) {
	cp := checkpointWithSteps(api.SnapshotSteps + 150)
	snap := snapshotOf(cp, 0, 0)
	if snap.StepCount != api.SnapshotSteps+150 || snap.StepsFrom != 150 || len(snap.Steps) != api.SnapshotSteps {
		t.Fatalf("stepCount %d, stepsFrom %d, %d steps; want %d, 150, %d", snap.StepCount, snap.StepsFrom, len(snap.Steps), api.SnapshotSteps+150, api.SnapshotSteps)
	}
	if first, last := snap.Steps[0].ID, snap.Steps[len(snap.Steps)-1].ID; first != "step-151" || last != fmt.Sprintf("step-%d", api.SnapshotSteps+150) {
		t.Fatalf("steps %s..%s, want the newest, oldest first", first, last)
	}
}

func TestSnapshotOfAShortRunCarriesEveryStep(t *testing.T) {
	snap := snapshotOf(checkpointWithSteps(3), 0, 0)
	if got := stepIDs(snap.Steps); snap.StepsFrom != 0 || snap.StepCount != 3 || fmt.Sprint(got) != "[step-1 step-2 step-3]" {
		t.Fatalf("stepsFrom %d, stepCount %d, steps %v", snap.StepsFrom, snap.StepCount, got)
	}
	if empty := snapshotOf(&api.Checkpoint{}, 0, 0); empty.Steps == nil || len(empty.Steps) != 0 {
		t.Fatalf("a run without steps shows %#v, want an empty list (JSON [])", empty.Steps)
	}
}

func TestStepsPagesCoverEveryStepOnceInOrder(t *testing.T) {
	cp := checkpointWithSteps(2*api.SnapshotSteps + 7)
	var all []string
	for from := 0; ; {
		page := stepsPage(cp, api.StepPage{From: from, Limit: 40})
		if page.StepCount != 2*api.SnapshotSteps+7 || page.From != from {
			t.Fatalf("page from %d: from %d, stepCount %d", from, page.From, page.StepCount)
		}
		if len(page.Steps) == 0 {
			break
		}
		if len(page.Steps) > 40 {
			t.Fatalf("page from %d has %d steps, limit 40", from, len(page.Steps))
		}
		all = append(all, stepIDs(page.Steps)...)
		from += len(page.Steps)
	}
	if len(all) != 2*api.SnapshotSteps+7 {
		t.Fatalf("pages held %d steps, want %d", len(all), 2*api.SnapshotSteps+7)
	}
	for i, id := range all {
		if id != fmt.Sprintf("step-%d", i+1) {
			t.Fatalf("step %d of the pages is %s", i, id)
		}
	}
}

func TestStepsPageBoundsItsLimitAndRange(t *testing.T) {
	cp := checkpointWithSteps(3 * api.MaxStepsPage)
	if n := len(stepsPage(cp, api.StepPage{From: 0}).Steps); n != api.MaxStepsPage {
		t.Fatalf("limit 0 gave %d steps, want %d", n, api.MaxStepsPage)
	}
	if n := len(stepsPage(cp, api.StepPage{From: 0, Limit: 10 * api.MaxStepsPage}).Steps); n != api.MaxStepsPage {
		t.Fatalf("a limit past api.MaxStepsPage gave %d steps, want %d", n, api.MaxStepsPage)
	}
	if p := stepsPage(cp, api.StepPage{From: -5, Limit: 2}); p.From != 0 || fmt.Sprint(stepIDs(p.Steps)) != "[step-1 step-2]" {
		t.Fatalf("from -5: from %d, %v", p.From, stepIDs(p.Steps))
	}
	if p := stepsPage(cp, api.StepPage{From: 5 * api.MaxStepsPage}); len(p.Steps) != 0 || p.From != 3*api.MaxStepsPage {
		t.Fatalf("past the end: from %d, %d steps", p.From, len(p.Steps))
	}
}

func TestConversationRangeAnswersTheMessagesAWorkerLacksAndRefusesWhatTheRunNeverHad(t *testing.T) {
	cp := &api.Checkpoint{}
	for i := range 5 {
		cp.Conversation = append(cp.Conversation, api.Message{Role: api.RoleUser, Content: fmt.Sprintf("m%d", i)})
	}
	contents := func(ms []api.Message) string {
		out := ""
		for _, m := range ms {
			out += m.Content
		}
		return out
	}
	for _, c := range []struct {
		from, length int
		want         string
	}{{0, 0, "m0m1m2m3m4"}, {0, 3, "m0m1m2"}, {2, 4, "m2m3"}, {4, 0, "m4"}, {5, 5, ""}, {3, 3, ""}} {
		got, err := conversationRange(cp, c.from, c.length)
		if err != nil || contents(got) != c.want {
			t.Fatalf("from %d length %d: %q, %v; want %q", c.from, c.length, contents(got), err, c.want)
		}
	}
	for _, bad := range [][2]int{{-1, 3}, {4, 3}, {0, 6}, {0, -1}, {6, 0}} {
		if got, err := conversationRange(cp, bad[0], bad[1]); err == nil {
			t.Fatalf("from %d length %d answered %d messages, want an error", bad[0], bad[1], len(got))
		}
	}
}

func TestInboxListsOnlyTheWaitingActionsAndNotTheirInputs(t *testing.T) {
	cp := &api.Checkpoint{Label: api.LabelWaitingApproval}
	cp.Run.Repo, cp.Run.Status = "acme/widgets", api.RunWaitingForUser
	for i, state := range []api.ActionState{api.ActionApproved, api.ActionWaiting, api.ActionRejected, api.ActionWaiting} {
		cp.Actions = append(cp.Actions, &api.PendingAction{ID: fmt.Sprintf("act-%d", i), State: state, Preview: "p", SafeInput: []byte(`{"body":"secret-ish"}`)})
	}
	memo := inboxMemo(cp)
	if len(memo.Actions) != 2 || memo.Actions[0].ID != "act-1" || memo.Actions[1].ID != "act-3" {
		t.Fatalf("actions %+v, want act-1 and act-3", memo.Actions)
	}
	for _, a := range memo.Actions {
		if a.SafeInput != nil || a.Preview != "p" {
			t.Fatalf("action %+v: want its preview without its input", a)
		}
	}
	if cp.Actions[1].SafeInput == nil {
		t.Fatal("the memo changed the run's own action")
	}
	if memo.Run.Repo != "acme/widgets" || memo.Label != api.LabelWaitingApproval {
		t.Fatalf("memo %+v", memo)
	}
}
