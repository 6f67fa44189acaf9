package runview

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/agentrun/agentrun/api"
)

// Status prints a run for a person: where it is, every step (with the
// tries of one Temporal is retrying), and the pending action with how to
// decide it.
func Status(w io.Writer, runID string, snap api.RunSnapshot, tries map[string]Try) error {
	var b strings.Builder
	r := snap.Run
	fmt.Fprintf(&b, "run      %s\n", runID)
	fmt.Fprintf(&b, "target   %s\n", OneLine(r.TargetName()))
	if r.Status == api.RunFailed {
		// Said in words too: a failed run must not read like a finished one.
		fmt.Fprintf(&b, "status   %s (the run did not finish; see error and outcome)\n", r.Status)
	} else {
		fmt.Fprintf(&b, "status   %s\n", standingLine(snap))
	}
	fmt.Fprintf(&b, "label    %s\n", OneLine(snap.Label))
	fmt.Fprintf(&b, "user     %s\n", OneLine(r.UserID))
	if r.PostsWithoutAsking != "" {
		fmt.Fprintf(&b, "asks     no one: %s lifted the agent's gate for this run\n", OneLine(r.PostsWithoutAsking))
	}
	fmt.Fprintf(&b, "created  %s   updated %s\n", FormatTime(r.CreatedAt), FormatTime(r.UpdatedAt))
	if r.Result != "" {
		fmt.Fprintf(&b, "result   %s\n", OneLine(r.Result))
	}
	if r.Error != "" {
		fmt.Fprintf(&b, "error    %s\n", OneLine(r.Error))
	}
	writeOutcome(&b, snap)
	b.WriteString("\nsteps\n")
	writeSteps(&b, snap.Steps, tries)
	if pa := snap.PendingAction; pa != nil {
		b.WriteString("\n")
		writePendingAction(&b, runID, r.Status, *pa)
	}
	if r.Status == api.RunReconciling && WaitsForPerson(snap) {
		b.WriteString("\n")
		writeResolveHint(&b, runID, snap.AwaitingResolve)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writeSteps(b *strings.Builder, steps []api.AgentStep, tries map[string]Try) {
	if len(steps) == 0 {
		b.WriteString("  (none yet)\n")
		return
	}
	tw := tabwriter.NewWriter(b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  SEQ\tID\tTYPE\tTOOL\tSTATUS\tATTEMPT\tDURATION\tERROR")
	for _, st := range steps {
		attempt, stepErr := fmt.Sprint(st.Attempt), OneLine(st.Error)
		if try, ok := tries[st.ID]; ok {
			attempt, stepErr = withTry(attempt, stepErr, try)
		}
		tool := st.ToolName
		if st.IsPermissionCheck() {
			tool = StepTitle(st) // whose permission, and what GitHub said
		}
		fmt.Fprintf(tw, "  %d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n",
			st.Sequence, st.ID, st.Type, orDash(tool), st.Status, attempt, stepDuration(st), orDash(stepErr))
	}
	_ = tw.Flush() // writes to a strings.Builder cannot fail
}

// withTry adds Temporal's try to a step's own attempt (which counts
// operations, e.g. a post retried after reconciling) and the last try's error
// to the step's.
func withTry(attempt, stepErr string, try Try) (string, string) {
	attempt += fmt.Sprintf(" (try %d)", try.Attempt)
	if try.LastError == "" {
		return attempt, stepErr
	}
	last := "last try: " + try.LastError
	if !try.NextAt.IsZero() {
		last += "; next try at " + FormatTime(try.NextAt)
	}
	if stepErr != "" {
		return attempt, stepErr + "; " + last
	}
	return attempt, last
}

func writePendingAction(b *strings.Builder, runID string, status api.RunStatus, pa api.PendingAction) {
	fmt.Fprintf(b, "pending action %s (%s)\n", pa.ID, pa.State)
	fmt.Fprintf(b, "  step     %s\n", pa.StepID)
	fmt.Fprintf(b, "  tool     %s\n", pa.ToolName)
	fmt.Fprintf(b, "  target   %s\n", OneLine(pa.Target))
	if pa.Caution != "" {
		fmt.Fprintf(b, "  in doubt %s\n", OneLine(pa.Caution))
	}
	fmt.Fprintf(b, "  expires  %s\n", FormatTime(pa.ExpiresAt))
	if pa.DecidedBy != "" || pa.DecidedAt != nil {
		fmt.Fprintf(b, "  decided  %s by %s", formatTimePtr(pa.DecidedAt), OneLine(orDash(pa.DecidedBy)))
		if pa.Reason != "" {
			fmt.Fprintf(b, ": %s", OneLine(pa.Reason))
		}
		b.WriteString("\n")
	}
	b.WriteString("  preview\n")
	for _, line := range strings.Split(strings.TrimRight(pa.Preview, "\n"), "\n") {
		fmt.Fprintln(b, strings.TrimRight("    | "+line, " "))
	}
	if pa.State == api.ActionWaiting && status == api.RunWaitingForUser {
		writeDecisionHints(b, runID, pa.ID)
	}
}

func stepDuration(st api.AgentStep) string {
	if st.CompletedAt == nil {
		return "-"
	}
	return (time.Duration(st.DurationMs) * time.Millisecond).String()
}

// standingLine is the run's status and, where they say more, its
// api.StandingOfRun words and why: "completed · Partial: get_coupons
// failed (coupons unavailable)".
func standingLine(snap api.RunSnapshot) string {
	line := string(snap.Run.Status)
	st := api.StandingOfRun(snap)
	if snap.Run.Status.IsTerminal() && !strings.EqualFold(st.Words, line) && st.Key != string(api.RunCompleted) {
		line += " · " + st.Words
	}
	if st.Detail != "" {
		line += ": " + OneLine(st.Detail)
	}
	return line
}
