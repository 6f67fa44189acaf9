package main

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
)

func TestEventsAfterSkipsWhatWasAlreadyPrinted(t *testing.T) {
	events := []api.Event{{Sequence: 3}, {Sequence: 4}, {Sequence: 4}, {Sequence: 5}}

	fresh := eventsAfter(events, 3)

	require.Equal(t, []api.Event{{Sequence: 4}, {Sequence: 5}}, fresh)
}
