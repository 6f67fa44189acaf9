package api

import (
	"fmt"
	"testing"
)

func checkpointWithSteps(n int) *Checkpoint {
	cp := &Checkpoint{}
	for i := range n {
		cp.Steps = append(cp.Steps, &AgentStep{ID: fmt.Sprintf("step-%d", i+1), Sequence: i + 1, Type: StepModelCall})
	}
	return cp
}

func stepIDs(steps []AgentStep) []string {
	ids := make([]string, len(steps))
	for i, st := range steps {
		ids[i] = st.ID
	}
	return ids
}

func TestSnapshotOfALongRunCarriesItsNewestStepsAndTheirPlace(t *testing.T) {
	cp := checkpointWithSteps(SnapshotSteps + 150)
	snap := cp.Snapshot(0, 0)
	if snap.StepCount != SnapshotSteps+150 || snap.StepsFrom != 150 || len(snap.Steps) != SnapshotSteps {
		t.Fatalf("stepCount %d, stepsFrom %d, %d steps; want %d, 150, %d", snap.StepCount, snap.StepsFrom, len(snap.Steps), SnapshotSteps+150, SnapshotSteps)
	}
	if first, last := snap.Steps[0].ID, snap.Steps[len(snap.Steps)-1].ID; first != "step-151" || last != fmt.Sprintf("step-%d", SnapshotSteps+150) {
		t.Fatalf("steps %s..%s, want the newest, oldest first", first, last)
	}
}

func TestSnapshotOfAShortRunCarriesEveryStep(t *testing.T) {
	snap := checkpointWithSteps(3).Snapshot(0, 0)
	if got := stepIDs(snap.Steps); snap.StepsFrom != 0 || snap.StepCount != 3 || fmt.Sprint(got) != "[step-1 step-2 step-3]" {
		t.Fatalf("stepsFrom %d, stepCount %d, steps %v", snap.StepsFrom, snap.StepCount, got)
	}
	if empty := (&Checkpoint{}).Snapshot(0, 0); empty.Steps == nil || len(empty.Steps) != 0 {
		t.Fatalf("a run without steps shows %#v, want an empty list (JSON [])", empty.Steps)
	}
}

func TestStepsPagesCoverEveryStepOnceInOrder(t *testing.T) {
	cp := checkpointWithSteps(2*SnapshotSteps + 7)
	var all []string
	for from := 0; ; {
		page := cp.StepsPage(StepPage{From: from, Limit: 40})
		if page.StepCount != 2*SnapshotSteps+7 || page.From != from {
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
	if len(all) != 2*SnapshotSteps+7 {
		t.Fatalf("pages held %d steps, want %d", len(all), 2*SnapshotSteps+7)
	}
	for i, id := range all {
		if id != fmt.Sprintf("step-%d", i+1) {
			t.Fatalf("step %d of the pages is %s", i, id)
		}
	}
}

func TestStepsPageBoundsItsLimitAndRange(t *testing.T) {
	cp := checkpointWithSteps(3 * SnapshotSteps)
	if n := len(cp.StepsPage(StepPage{From: 0}).Steps); n != SnapshotSteps {
		t.Fatalf("limit 0 gave %d steps, want %d", n, SnapshotSteps)
	}
	if n := len(cp.StepsPage(StepPage{From: 0, Limit: 10 * SnapshotSteps}).Steps); n != SnapshotSteps {
		t.Fatalf("a limit past SnapshotSteps gave %d steps, want %d", n, SnapshotSteps)
	}
	if p := cp.StepsPage(StepPage{From: -5, Limit: 2}); p.From != 0 || fmt.Sprint(stepIDs(p.Steps)) != "[step-1 step-2]" {
		t.Fatalf("from -5: from %d, %v", p.From, stepIDs(p.Steps))
	}
	if p := cp.StepsPage(StepPage{From: 5 * SnapshotSteps}); len(p.Steps) != 0 || p.From != 3*SnapshotSteps {
		t.Fatalf("past the end: from %d, %d steps", p.From, len(p.Steps))
	}
}
