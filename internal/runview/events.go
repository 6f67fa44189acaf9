package runview

import (
	"fmt"
	"io"
	"strings"

	"github.com/agentrun/agentrun/api"
)

// event prints one event on one line: sequence, time, what, and what
// it is about: the run's label for a run event, the event's own step for a
// step or action event (its Label is the run's label when it was recorded,
// which may describe another step).
func event(w io.Writer, ev api.Event, steps map[string]api.AgentStep) error {
	what := ev.Type
	if ev.StepID != "" {
		what += " " + ev.StepID
	}
	if ev.Status != "" {
		what += " " + ev.Status
	}
	about := ev.Label
	if ev.StepID != "" || (ev.Type != api.EventRunStatus && ev.Type != api.EventContinuedAsNew) {
		about = ""
		if st, ok := steps[ev.StepID]; ok {
			about = StepTitle(st)
		}
	}
	line := fmt.Sprintf("%4d  %s  %-40s  %s", ev.Sequence, FormatTime(ev.At), what, about)
	if ev.Detail != "" {
		line += " (" + oneLine(ev.Detail) + ")"
	}
	_, err := fmt.Fprintln(w, strings.TrimRight(line, " "))
	return err
}

// Events prints events; steps (from the run's snapshot, possibly
// none) name the step each event is about.
func Events(w io.Writer, events []api.Event, steps []api.AgentStep) error {
	byID := make(map[string]api.AgentStep, len(steps))
	for _, st := range steps {
		byID[st.ID] = st
	}
	for _, ev := range events {
		if err := event(w, ev, byID); err != nil {
			return err
		}
	}
	return nil
}

// FollowEnd says why following stopped and what a person can do.
func FollowEnd(w io.Writer, runID string, snap api.RunSnapshot, closed string) error {
	var b strings.Builder
	switch {
	case closed != "":
		fmt.Fprintf(&b, "run %s %s\n", runID, closed)
	case snap.Run.Status == api.RunWaitingForUser && snap.PendingAction != nil:
		fmt.Fprintf(&b, "run %s is waiting for approval of action %s\n", runID, snap.PendingAction.ID)
		writeDecisionHints(&b, runID, snap.PendingAction.ID)
	case WaitsForPerson(snap):
		fmt.Fprintf(&b, "run %s is waiting for an operator: %s\n", runID, snap.Label)
		writeResolveHints(&b, runID, snap.Steps)
	default:
		fmt.Fprintf(&b, "run %s %s: %s\n", runID, snap.Run.Status, snap.Label)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WaitsForPerson: an approval, or an operator's resolve after reconciliation
// could not tell whether the comment was posted.
func WaitsForPerson(snap api.RunSnapshot) bool {
	switch snap.Run.Status {
	case api.RunWaitingForUser:
		return true
	case api.RunReconciling:
		return snap.Label == api.LabelCannotTell
	}
	return false
}

func writeDecisionHints(b *strings.Builder, runID, actionID string) {
	fmt.Fprintf(b, "  approve: starter approve %s --action %s --as LOGIN\n", runID, actionID)
	fmt.Fprintf(b, "  reject:  starter reject %s --action %s --as LOGIN --reason TEXT\n", runID, actionID)
}

func writeResolveHints(b *strings.Builder, runID string, steps []api.AgentStep) {
	for _, st := range steps {
		if st.Status == api.StepOutcomeUnknown {
			fmt.Fprintf(b, "  resolve: starter resolve %s --step %s --decision retry|mark_succeeded|abandon --as LOGIN [--external-id ID]\n", runID, st.ID)
		}
	}
}
