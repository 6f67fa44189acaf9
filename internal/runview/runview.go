// Package runview is how the starter shows runs to a person: a run's status,
// its events, the list of runs and the approval inbox, and a signal's
// answer. Every function is pure (same input, same bytes) and times are UTC,
// so that the golden files in testdata do not depend on the machine.
package runview

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/runclient"
)

// JSON prints v indented, for --json.
func JSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("write JSON: %w", err)
	}
	return nil
}

// JSONLine prints v on one line, for a stream of --json values.
func JSONLine(w io.Writer, v any) error {
	if err := json.NewEncoder(w).Encode(v); err != nil {
		return fmt.Errorf("write JSON: %w", err)
	}
	return nil
}

// Started prints the run ID a start returned, or all of it with asJSON.
func Started(w io.Writer, r runclient.Started, asJSON bool) error {
	if asJSON {
		return JSON(w, r)
	}
	_, err := fmt.Fprintln(w, r.RunID)
	return err
}

// SignalReaction is what the run recorded after a signal.
type SignalReaction struct {
	RunID string `json:"runId"`
	// Event is the run's answer: the accepting event or the ignored signal;
	// nil when the run has not answered (no worker is running it), and the
	// signal waits in Temporal for one.
	Event *api.Event `json:"event,omitempty"`
	// Label and Status are the run right after it answered or, without an
	// answer, as it was last known.
	Label  string        `json:"label"`
	Status api.RunStatus `json:"status"`
}

// Reaction reports what the run did with a signal.
func Reaction(w io.Writer, r SignalReaction) error {
	if r.Event == nil {
		last := runclient.LastKnownLine(api.RunSnapshot{Run: api.Run{ID: r.RunID, Status: r.Status}, Label: OneLine(r.Label)})
		_, err := fmt.Fprintf(w, "%s\n%s\ncheck with: starter status %s\n", runclient.RecordedNote, last, r.RunID)
		return err
	}
	what := r.Event.Status
	if r.Event.Detail != "" {
		what += " (" + OneLine(r.Event.Detail) + ")"
	}
	_, err := fmt.Fprintf(w, "accepted: %s %s\nrun %s is now %s: %s\n", r.Event.StepID, what, r.RunID, r.Status, OneLine(r.Label))
	return err
}

// List prints one row per run.
func List(w io.Writer, rows []runclient.Listed) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RUN ID\tAGENT\tSTATUS\tSTARTED\tOUTCOME")
	for _, r := range rows {
		// A run from before runs named their agent ran the default one.
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.RunID, cmp.Or(r.Agent, api.DefaultAgent), r.Status, FormatTime(r.StartedAt), listedOutcome(r))
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("write the list: %w", err)
	}
	return nil
}

// listOutcomeRunes bounds the why of a listed run's outcome, so that one
// long error does not widen every row; `starter status` says it whole.
const listOutcomeRunes = 60

// listedOutcome is how an ended run stands (Listed.Standing) and why, in
// one cell; "-" while it is open, as its status says all there is.
func listedOutcome(r runclient.Listed) string {
	if !api.RunStatus(r.Status).IsTerminal() || r.Standing.Words == "" {
		return "-"
	}
	out := r.Standing.Words
	if r.Standing.Detail != "" {
		detail := OneLine(r.Standing.Detail)
		if utf8.RuneCountInString(detail) > listOutcomeRunes {
			detail = string([]rune(detail)[:listOutcomeRunes-1]) + "…"
		}
		out += ": " + detail
	}
	return out
}

// ApprovalInbox prints one row per action waiting for a person, soonest
// to expire first, and once, how to approve one.
func ApprovalInbox(w io.Writer, inbox []runclient.PendingApproval) error {
	if len(inbox) == 0 {
		_, err := fmt.Fprintln(w, "no action is waiting for approval")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RUN ID\tACTION ID\tTOOL\tTARGET\tREQUESTED BY\tEXPIRES")
	for _, a := range inbox {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", a.RunID, a.ActionID, a.Tool, a.Target, a.RequestedBy, FormatTime(a.ExpiresAt))
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("write the approval inbox: %w", err)
	}
	_, err := fmt.Fprintln(w, "approve: starter approve RUN_ID --action ACTION_ID --as LOGIN")
	return err
}
