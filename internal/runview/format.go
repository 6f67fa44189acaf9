package runview

import (
	"strings"
	"time"
)

// FormatTime is how every time is shown: UTC, to the second, "-" for none.
func FormatTime(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format(time.RFC3339)
}

func formatTimePtr(t *time.Time) string {
	if t == nil {
		return "-"
	}
	return FormatTime(*t)
}

// orDash shows an empty cell of a table as "-", so that columns stay aligned.
func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// OneLine folds a text onto one line (its whitespace, newlines included,
// becomes single spaces), so that a field printed on a line of its own
// cannot break that line or forge the next.
func OneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
