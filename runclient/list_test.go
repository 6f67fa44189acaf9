package runclient

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestListShowsTheNewestRunFirstWhateverOrderVisibilityAnswers(t *testing.T) {
	started := time.Date(2026, 3, 4, 9, 12, 0, 0, time.UTC)
	rows := []Listed{
		{RunID: "nightly", Status: "terminated", StartedAt: started.Add(-48 * time.Hour)},
		{RunID: "review-acme-widgets-2-0c1d2e3f4a5b", Status: "completed", StartedAt: started.Add(-time.Hour)},
		{RunID: "review-acme-widgets-1-65735bd75e04", Status: "waiting_for_user", StartedAt: started},
	}

	sortNewestFirst(rows)

	require.Equal(t, []Listed{
		{RunID: "review-acme-widgets-1-65735bd75e04", Status: "waiting_for_user", StartedAt: started},
		{RunID: "review-acme-widgets-2-0c1d2e3f4a5b", Status: "completed", StartedAt: started.Add(-time.Hour)},
		{RunID: "nightly", Status: "terminated", StartedAt: started.Add(-48 * time.Hour)},
	}, rows)
}

func TestListOrdersRunsStartedInTheSameInstantByID(t *testing.T) {
	at := time.Date(2026, 3, 4, 9, 12, 0, 0, time.UTC)
	rows := []Listed{{RunID: "b", StartedAt: at}, {RunID: "c", StartedAt: at.Add(time.Second)}, {RunID: "a", StartedAt: at}}

	sortNewestFirst(rows)

	require.Equal(t, []string{"c", "a", "b"}, []string{rows[0].RunID, rows[1].RunID, rows[2].RunID})
}
