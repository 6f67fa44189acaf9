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

// oneLine keeps an error or a reason on its own line of the output.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
