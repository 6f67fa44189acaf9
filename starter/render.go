package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/runclient"
)

// The render functions are pure: same input, same bytes. Times are UTC so
// that golden files do not depend on the machine.

func formatTime(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format(time.RFC3339)
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("write JSON: %w", err)
	}
	return nil
}

func writeJSONLine(w io.Writer, v any) error {
	if err := json.NewEncoder(w).Encode(v); err != nil {
		return fmt.Errorf("write JSON: %w", err)
	}
	return nil
}

// renderEvent prints one event on one line: sequence, time, what, and what
// it is about: the run's label for a run event, the event's own step for a
// step or action event (its Label is the run's label when it was recorded,
// which may describe another step).
func renderEvent(w io.Writer, ev api.Event, steps map[string]api.AgentStep) error {
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
			about = st.Title()
		}
	}
	line := fmt.Sprintf("%4d  %s  %-40s  %s", ev.Sequence, formatTime(ev.At), what, about)
	if ev.Detail != "" {
		line += " (" + oneLine(ev.Detail) + ")"
	}
	_, err := fmt.Fprintln(w, strings.TrimRight(line, " "))
	return err
}

// renderEvents prints events; steps (from the run's snapshot, possibly
// none) name the step each event is about.
func renderEvents(w io.Writer, events []api.Event, steps []api.AgentStep) error {
	byID := make(map[string]api.AgentStep, len(steps))
	for _, st := range steps {
		byID[st.ID] = st
	}
	for _, ev := range events {
		if err := renderEvent(w, ev, byID); err != nil {
			return err
		}
	}
	return nil
}

func renderStarted(w io.Writer, r runclient.Started, asJSON bool) error {
	if asJSON {
		return writeJSON(w, r)
	}
	_, err := fmt.Fprintln(w, r.RunID)
	return err
}

// renderFollowEnd says why following stopped and what a person can do.
func renderFollowEnd(w io.Writer, runID string, snap api.RunSnapshot, closed string) error {
	var b strings.Builder
	switch {
	case closed != "":
		fmt.Fprintf(&b, "run %s %s\n", runID, closed)
	case snap.Run.Status == api.RunWaitingForUser && snap.PendingAction != nil:
		fmt.Fprintf(&b, "run %s is waiting for approval of action %s\n", runID, snap.PendingAction.ID)
		writeDecisionHints(&b, runID, snap.PendingAction.ID)
	case waitsForPerson(snap):
		fmt.Fprintf(&b, "run %s is waiting for an operator: %s\n", runID, snap.Label)
		writeResolveHints(&b, runID, snap.Steps)
	default:
		fmt.Fprintf(&b, "run %s %s: %s\n", runID, snap.Run.Status, snap.Label)
	}
	_, err := io.WriteString(w, b.String())
	return err
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

// renderReaction reports what the run did with a signal.
func renderReaction(w io.Writer, r reaction) error {
	if r.Event == nil {
		_, err := fmt.Fprintf(w, "sent to run %s; it has not answered yet (is a worker running?). Check with: starter status %s\n", r.RunID, r.RunID)
		return err
	}
	what := r.Event.Status
	if r.Event.Detail != "" {
		what += " (" + oneLine(r.Event.Detail) + ")"
	}
	_, err := fmt.Fprintf(w, "accepted: %s %s\nrun %s is now %s: %s\n", r.Event.StepID, what, r.RunID, r.Status, r.Label)
	return err
}

func renderList(w io.Writer, rows []runclient.Listed) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RUN ID\tSTATUS\tSTARTED")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", r.RunID, r.Status, formatTime(r.StartedAt))
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("write the list: %w", err)
	}
	return nil
}

// renderApprovalInbox prints one row per action waiting for a person, soonest
// to expire first, and once, how to approve one.
func renderApprovalInbox(w io.Writer, inbox []runclient.PendingApproval) error {
	if len(inbox) == 0 {
		_, err := fmt.Fprintln(w, "no action is waiting for approval")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RUN ID\tACTION ID\tTARGET\tREQUESTED BY\tEXPIRES")
	for _, a := range inbox {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", a.RunID, a.ActionID, a.Target, a.RequestedBy, formatTime(a.ExpiresAt))
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("write the approval inbox: %w", err)
	}
	_, err := fmt.Fprintln(w, "approve: starter approve RUN_ID --action ACTION_ID --as LOGIN")
	return err
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
