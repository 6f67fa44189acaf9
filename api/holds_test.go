package api

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestAHoldSelectorNamesExactlyOneThingOfBoundedLength(t *testing.T) {
	long := strings.Repeat("a", MaxHoldSelectorBytes+1)
	for name, tc := range map[string]struct {
		sel  HoldSelector
		want string
	}{
		"an agent":                {HoldSelector{Agent: "pr-review"}, ""},
		"a target":                {HoldSelector{Target: "acme/widgets#1"}, ""},
		"a tool":                  {HoldSelector{Tool: ToolCreateIssueComment}, ""},
		"nothing":                 {HoldSelector{}, "a hold names exactly one of an agent, a target or a tool"},
		"only blanks":             {HoldSelector{Agent: "  ", Tool: "\t"}, "a hold names exactly one of an agent, a target or a tool"},
		"two things":              {HoldSelector{Agent: "pr-review", Tool: "x"}, "a hold names exactly one of an agent, a target or a tool"},
		"three things":            {HoldSelector{Agent: "a", Target: "b", Tool: "c"}, "a hold names exactly one of an agent, a target or a tool"},
		"at the bound":            {HoldSelector{Target: long[:MaxHoldSelectorBytes]}, ""},
		"a long agent":            {HoldSelector{Agent: long}, "a hold's selector is 201 bytes; at most 200"},
		"a long tool":             {HoldSelector{Tool: long}, "a hold's selector is 201 bytes; at most 200"},
		"a long blank beside one": {HoldSelector{Agent: "a", Target: strings.Repeat(" ", MaxHoldSelectorBytes+1)}, "a hold's selector is 201 bytes; at most 200"},
	} {
		err := tc.sel.Validate()
		if tc.want == "" {
			require.NoError(t, err, name)
		} else {
			require.EqualError(t, err, tc.want, name)
		}
	}
}

func TestAHoldOrReleaseSaysWhoAndWhyWithinBounds(t *testing.T) {
	sel := HoldSelector{Agent: "pr-review"}
	for name, tc := range map[string]struct {
		sig  HoldSignal
		want string
	}{
		"complete":          {HoldSignal{Selector: sel, By: "ops", Reason: "loop"}, ""},
		"nobody":            {HoldSignal{Selector: sel, By: " ", Reason: "loop"}, "a hold or release names who asks it"},
		"no reason":         {HoldSignal{Selector: sel, By: "ops", Reason: "\n"}, "a hold or release says why"},
		"reason at bound":   {HoldSignal{Selector: sel, By: "ops", Reason: strings.Repeat("r", MaxHoldReasonBytes)}, ""},
		"reason past bound": {HoldSignal{Selector: sel, By: "ops", Reason: strings.Repeat("r", MaxHoldReasonBytes+1)}, "the reason is 501 bytes; at most 500"},
		"who at bound":      {HoldSignal{Selector: sel, By: strings.Repeat("o", MaxHoldSelectorBytes), Reason: "x"}, ""},
		"who past bound":    {HoldSignal{Selector: sel, By: strings.Repeat("o", MaxHoldSelectorBytes+1), Reason: "x"}, "who is 201 bytes; at most 200"},
		"a bad selector":    {HoldSignal{By: "ops", Reason: "x"}, "a hold names exactly one of an agent, a target or a tool"},
	} {
		err := tc.sig.Validate()
		if tc.want == "" {
			require.NoError(t, err, name)
		} else {
			require.EqualError(t, err, tc.want, name)
		}
	}
}

func TestAHoldMatchesTheActionsItNames(t *testing.T) {
	check := HoldCheck{RunID: "r", Agent: "pr-review", Tool: ToolCreateIssueComment, Targets: []string{"acme/widgets#1", "acme/gadgets#7"}}
	for sel, want := range map[HoldSelector]bool{
		{Agent: "pr-review"}:           true,
		{Agent: "triage"}:              false,
		{Tool: ToolCreateIssueComment}: true,
		{Tool: ToolCreateIssue}:        false,
		{Target: "acme/widgets#1"}:     true,
		{Target: "acme/gadgets#7"}:     true,
		{Target: "acme/widgets"}:       true,
		{Target: "acme/gadgets"}:       true,
		{Target: "acme/widgets#2"}:     false,
		{Target: "acme/widgets#"}:      false,
		{Target: "acme/widget"}:        false,
		{Target: "acme"}:               false,
		{}:                             false,
	} {
		require.Equal(t, want, sel.Matches(check), "%+v", sel)
	}
	require.False(t, HoldSelector{Target: "acme/widgets"}.Matches(HoldCheck{}), "an action on no target")
}

func TestTheOldestMatchingHoldIsTheOneShown(t *testing.T) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	view := HoldsView{Active: []Hold{
		{Selector: HoldSelector{Agent: "triage"}, Reason: "other", At: at},
		{Selector: HoldSelector{Tool: ToolCreateIssueComment}, Reason: "spam", At: at},
		{Selector: HoldSelector{Agent: "pr-review"}, Reason: "loop", At: at},
	}}
	got := view.Matching(HoldCheck{Agent: "pr-review", Tool: ToolCreateIssueComment})
	require.NotNil(t, got)
	require.Equal(t, "spam", got.Reason)
	require.Same(t, &view.Active[1], got)
	require.Equal(t, "held by ops: spam", got.Label())
	require.Nil(t, view.Matching(HoldCheck{Agent: "recommender", Tool: ToolCreateIssue}))
	require.Nil(t, HoldsView{}.Matching(HoldCheck{Agent: "pr-review"}))
}

func TestAHoldSelectorReadsAsAPersonSaysIt(t *testing.T) {
	require.Equal(t, "agent pr-review", HoldSelector{Agent: "pr-review"}.String())
	require.Equal(t, "target acme/widgets", HoldSelector{Target: "acme/widgets"}.String())
	require.Equal(t, "tool create_issue", HoldSelector{Tool: "create_issue"}.String())
	require.Equal(t, "agentrun-holds:agentrun", HoldsWorkflowID("agentrun"))
	require.NotEqual(t, HoldsWorkflowID("a"), HoldsWorkflowID("b"), "one holds workflow per task queue")
}
