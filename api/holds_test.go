package api

import (
	"fmt"
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
		// As an operator types it: case and spaces do not change what it names.
		{Agent: "PR-Review"}:                 true,
		{Agent: " pr-review "}:               true,
		{Target: "Acme/Widgets"}:             true,
		{Target: "acme/widgets "}:            true,
		{Target: " ACME/WIDGETS#1"}:          true,
		{Target: "Acme/Gadgets#7"}:           true,
		{Target: "Acme/Widgets#2"}:           false,
		{Tool: " " + ToolCreateIssueComment}: true,
	} {
		require.Equal(t, want, sel.Matches(check), "%+v", sel)
	}
	require.False(t, HoldSelector{Target: "acme/widgets"}.Matches(HoldCheck{}), "an action on no target")
	require.True(t, HoldSelector{Target: "acme/widgets"}.Matches(HoldCheck{Targets: []string{"Acme/Widgets#3"}}), "a run names the repository as GitHub spells it")
	require.True(t, HoldSelector{Target: "acme/widgets"}.Matches(HoldCheck{Targets: []string{"acme/widgets (new issue)"}}), "create_issue touches the repository")
	// Targets of other kinds are the run's words (Run.TargetName, an
	// action's Touches), matched as they are.
	for _, target := range []string{"billing queue", "#releases", "table for 4 in Paris (budget 100)", "http://tickets.example/tickets", "mcp:kv"} {
		require.True(t, HoldSelector{Target: " " + target}.Matches(HoldCheck{Targets: []string{target}}), target)
		require.NoError(t, HoldSelector{Target: target}.Validate(), target)
	}
	require.False(t, HoldSelector{Target: "Billing queue"}.Matches(HoldCheck{Targets: []string{"billing queue"}}))
}

// A hold that could never match is refused, with what to write instead,
// rather than reported as placed while every run goes on.
func TestAHoldThatCouldNeverMatchIsRefused(t *testing.T) {
	for sel, want := range map[HoldSelector]string{
		{Agent: "PR Review"}:                                `agent "PR Review": an agent's name is lower case letters, digits and '-', starting with a letter`,
		{Agent: "pr_review"}:                                `agent "pr_review": an agent's name is lower case letters, digits and '-', starting with a letter`,
		{Tool: "Create Issue"}:                              `tool "Create Issue": a tool's name is lower case letters, digits and '_', starting with a letter`,
		{Target: "https://github.com/acme/widgets/pull/12"}: `target "https://github.com/acme/widgets/pull/12": name a pull request as owner/name#12 and a repository as owner/name, as runs show them, not by URL`,
		{Target: "github.com/acme/widgets"}:                 `target "github.com/acme/widgets": name a pull request as owner/name#12 and a repository as owner/name, as runs show them, not by URL`,
		{Target: "acme/widgets/pull/12"}:                    `target "acme/widgets/pull/12": name a pull request as owner/name#12 and a repository as owner/name, as runs show them, not by URL`,
		{Target: "acme/widgets/pull"}:                       `target "acme/widgets/pull": name a pull request as owner/name#12 and a repository as owner/name, as runs show them, not by URL`,
		{Target: "acme/widgets#"}:                           `target "acme/widgets#": after '#' comes a pull request's number, as in acme/widgets#12`,
		{Target: "acme/widgets#0"}:                          `target "acme/widgets#0": after '#' comes a pull request's number, as in acme/widgets#12`,
		{Target: "acme/widgets#012"}:                        `target "acme/widgets#012": after '#' comes a pull request's number, as in acme/widgets#12`,
		{Target: "acme/widgets#twelve"}:                     `target "acme/widgets#twelve": after '#' comes a pull request's number, as in acme/widgets#12`,
	} {
		require.EqualError(t, sel.Validate(), want, "%+v", sel)
	}
}

func TestAHoldSelectorIsKeptInOneForm(t *testing.T) {
	for in, want := range map[HoldSelector]HoldSelector{
		{Agent: " PR-Review "}:      {Agent: "pr-review"},
		{Target: "Acme/Widgets "}:   {Target: "acme/widgets"},
		{Target: "ACME/widgets#12"}: {Target: "acme/widgets#12"},
		{Target: " #releases "}:     {Target: "#releases"},
		{Target: "Billing queue"}:   {Target: "Billing queue"},
		{Tool: "create_issue "}:     {Tool: "create_issue"},
		{Tool: "\tadd_labels"}:      {Tool: "add_labels"},
	} {
		got, err := in.Canonical()
		require.NoError(t, err, "%+v", in)
		require.Equal(t, want, got, "%+v", in)
	}
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

// A tool's name, as a registry takes it and a hold on a tool names it: a
// lower case letter first, then lower case letters, digits and '_', at
// most 64 bytes. Each edge of each range is in, the byte past it out.
func TestAToolsNameIsALowerCaseLetterThenLettersDigitsAndUnderscores(t *testing.T) {
	for _, ok := range []string{"a", "z", "az", "za", "a0", "a9", "a_", "create_issue_comment", "a" + strings.Repeat("b", 63)} {
		require.True(t, ValidToolName(ok), ok)
	}
	for _, bad := range []string{"", "`a", "{a", "0a", "_a", "A", "a`", "a{", "a/", "a:", "aZ", "a-b", "a b", "a" + strings.Repeat("b", 64)} {
		require.False(t, ValidToolName(bad), bad)
	}
}

// Changed is what makes the starter exit 0 and the API answer 200: only a
// hold placed, replaced or released changed anything.
func TestOnlyAPlacedReplacedOrReleasedHoldChangedAnything(t *testing.T) {
	for outcome, want := range map[string]bool{
		HoldOutcomePlaced: true, HoldOutcomeReplaced: true, HoldOutcomeReleased: true,
		HoldOutcomeRefused: false, HoldOutcomeNothingToRelease: false, "": false,
	} {
		require.Equal(t, want, HoldAnswer{Outcome: outcome}.Changed(), outcome)
	}
}

// A hold's request ID may be as long as a selector, and no longer.
func TestAHoldsRequestIDIsBoundedAtTheSelectorsLength(t *testing.T) {
	sig := HoldSignal{Selector: HoldSelector{Agent: "pr-review"}, By: "ops", Reason: "bad deploy", RequestID: strings.Repeat("r", MaxHoldSelectorBytes)}
	require.NoError(t, sig.Validate())
	sig.RequestID += "r"
	require.EqualError(t, sig.Validate(), fmt.Sprintf("the request ID is %d bytes; at most %d", MaxHoldSelectorBytes+1, MaxHoldSelectorBytes))
}
