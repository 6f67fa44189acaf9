package runview

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/agentrun/agentrun/api"
)

// Holds prints the operators' holds and the latest changes to them, one
// line each: an operator's reason is folded onto its line.
func Holds(w io.Writer, view api.HoldsView) error {
	var b strings.Builder
	if len(view.Active) == 0 {
		b.WriteString("no holds\n")
	}
	for _, h := range view.Active {
		fmt.Fprintf(&b, "HELD %s  by %s at %s: %s\n", h.Selector, OneLine(h.By), holdTime(h.At), OneLine(h.Reason))
	}
	if len(view.Log) > 0 {
		b.WriteString("\nlatest changes:\n")
	}
	for _, e := range view.Log {
		fmt.Fprintf(&b, "%s  %-8s %s  by %s: %s", holdTime(e.At), e.Action, e.Selector, OneLine(e.By), OneLine(e.Reason))
		if e.Note != "" {
			fmt.Fprintf(&b, " (%s)", OneLine(e.Note))
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func holdTime(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05 UTC") }
