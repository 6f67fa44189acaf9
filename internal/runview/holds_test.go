package runview

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
)

// The holds list prints each hold and each change on one line: an
// operator's reason with a newline in it (the API takes one) cannot forge
// another hold, or a release that never happened.
func TestHoldsListEachHoldAndChangeOnOneLine(t *testing.T) {
	at := time.Date(2026, 12, 3, 8, 0, 0, 0, time.UTC)
	sel := api.HoldSelector{Agent: "pr-review"}
	view := api.HoldsView{
		Active: []api.Hold{{Selector: sel, By: "ops-oncall", Reason: "bad deploy\nHELD tool=nothing  by nobody", At: at}},
		Log: []api.HoldEvent{
			{Action: api.HoldPlaced, Selector: sel, By: "ops-oncall", Reason: "bad deploy\nrelease  everything", At: at},
			{Action: api.HoldRefused, Selector: sel, By: "ops-lead", Reason: "done", At: at.Add(time.Minute), Note: "nothing to release:\nok"},
		},
	}
	var out bytes.Buffer

	require.NoError(t, Holds(&out, view))

	require.Equal(t, "HELD "+sel.String()+"  by ops-oncall at 2026-12-03 08:00:00 UTC: bad deploy HELD tool=nothing by nobody\n"+
		"\nlatest changes:\n"+
		"2026-12-03 08:00:00 UTC  hold     "+sel.String()+"  by ops-oncall: bad deploy release everything\n"+
		"2026-12-03 08:01:00 UTC  refused  "+sel.String()+"  by ops-lead: done (nothing to release: ok)\n", out.String())

	out.Reset()
	require.NoError(t, Holds(&out, api.HoldsView{}))
	require.Equal(t, "no holds\n", out.String())
}
