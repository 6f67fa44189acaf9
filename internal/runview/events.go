package runview

import (
	"fmt"
	"io"
	"strings"

	"github.com/agentrun/agentrun/api"
)

// EventLines prints a run's events, one a line, as they come: sequence,
// time, what, and what it is about: the run's label for a run event, the
// event's own step for a step or action event (its Label is the run's label
// when it was recorded, which may describe another step), titled as the
// step was at that event. An action's step reads "send a message" until its
// succeeded event, "sent message M-1" from there, never the final title on
// its earlier events. It carries each step's status from one batch of
// events to the next, so that following a run reads as reading it later.
type EventLines struct {
	steps map[string]api.AgentStep
	at    map[string]api.StepStatus // each step's status as of the last event printed
}

// NewEventLines prints events about steps (from the run's snapshot,
// possibly none).
func NewEventLines(steps []api.AgentStep) *EventLines {
	l := &EventLines{steps: map[string]api.AgentStep{}, at: map[string]api.StepStatus{}}
	l.Know(steps)
	return l
}

// Know adds steps, or their newer fields, to those events are titled by.
func (l *EventLines) Know(steps []api.AgentStep) {
	for _, st := range steps {
		l.steps[st.ID] = st
	}
}

// Unknown reports whether an event names a step that Know has not been
// given: the steps were read before the events that name them.
func (l *EventLines) Unknown(events []api.Event) bool {
	for _, ev := range events {
		if _, ok := l.steps[ev.StepID]; ev.StepID != "" && !ok {
			return true
		}
	}
	return false
}

// Print prints events, in order.
func (l *EventLines) Print(w io.Writer, events []api.Event) error {
	for _, ev := range events {
		l.observe(ev)
		if err := l.event(w, ev); err != nil {
			return err
		}
	}
	return nil
}

// Titles are, by event sequence, the title of the step each event names as
// it was at that event: what a page tags an event with ("post a comment"
// for a decision ignored before the comment was posted). An event naming no
// step it knows has none.
func (l *EventLines) Titles(events []api.Event) map[int64]string {
	titles := map[int64]string{}
	for _, ev := range events {
		l.observe(ev)
		if st, ok := l.steps[ev.StepID]; ok && ev.StepID != "" {
			titles[ev.Sequence] = StepTitle(l.asAt(st))
		}
	}
	return titles
}

// observe notes the status a step_status event gives its step.
func (l *EventLines) observe(ev api.Event) {
	if ev.Type == api.EventStepStatus && ev.StepID != "" {
		l.at[ev.StepID] = api.StepStatus(ev.Status)
	}
}

func (l *EventLines) event(w io.Writer, ev api.Event) error {
	what := ev.Type
	if ev.StepID != "" {
		what += " " + ev.StepID
	}
	if ev.Status != "" {
		what += " " + ev.Status
	}
	about := OneLine(ev.Label)
	if ev.StepID != "" || (ev.Type != api.EventRunStatus && ev.Type != api.EventContinuedAsNew) {
		about = ""
		if st, ok := l.steps[ev.StepID]; ok {
			about = StepTitle(l.asAt(st))
		}
	}
	line := fmt.Sprintf("%4d  %s  %-40s  %s", ev.Sequence, FormatTime(ev.At), what, about)
	if ev.Detail != "" {
		line += " (" + OneLine(ev.Detail) + ")"
	}
	_, err := fmt.Fprintln(w, strings.TrimRight(line, " "))
	return err
}

// asAt is the step as it was at the event being printed: its status then,
// and what it made only once it had succeeded. A step whose earlier events
// are not in view keeps the status it has now.
func (l *EventLines) asAt(st api.AgentStep) api.AgentStep {
	status, ok := l.at[st.ID]
	if !ok {
		return st
	}
	st.Status = status
	if status != api.StepSucceeded {
		st.ExternalResourceID = ""
	}
	return st
}

// Events prints events; steps (from the run's snapshot, possibly none)
// name the step each event is about, as it was at that event.
func Events(w io.Writer, events []api.Event, steps []api.AgentStep) error {
	return NewEventLines(steps).Print(w, events)
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
		fmt.Fprintf(&b, "run %s is waiting for an operator: %s\n", runID, OneLine(snap.Label))
		writeResolveHint(&b, runID, snap.AwaitingResolve)
	default:
		fmt.Fprintf(&b, "run %s %s: %s\n", runID, snap.Run.Status, OneLine(snap.Label))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WaitsForPerson: an approval, or an operator's resolve of the step whose
// effect a look could not tell (RunSnapshot.AwaitingResolve), whatever the
// step's tool.
func WaitsForPerson(snap api.RunSnapshot) bool {
	switch snap.Run.Status {
	case api.RunWaitingForUser:
		return true
	case api.RunReconciling:
		return snap.AwaitingResolve != ""
	}
	return false
}

func writeDecisionHints(b *strings.Builder, runID, actionID string) {
	fmt.Fprintf(b, "  approve: starter approve %s --action %s --as LOGIN\n", runID, actionID)
	fmt.Fprintf(b, "  reject:  starter reject %s --action %s --as LOGIN --reason TEXT\n", runID, actionID)
}

// writeResolveHint is the command that resolves the step the run waits on,
// whatever its tool.
func writeResolveHint(b *strings.Builder, runID, stepID string) {
	fmt.Fprintf(b, "  resolve: starter resolve %s --step %s --decision retry|mark_succeeded|abandon --as LOGIN [--external-id ID]\n", runID, stepID)
}
