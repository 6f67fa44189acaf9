package agents_test

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/agents"
	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/tools"
)

// sampleArgs is a valid call of each built-in tool; a tool added without
// one fails the test below, so that its description is checked too.
var sampleArgs = map[string]string{
	api.ToolGetPullRequest:          `{}`,
	api.ToolListPullRequestFiles:    `{}`,
	api.ToolCreateIssueComment:      `{"body":"Looks good."}`,
	api.ToolCreatePullRequestReview: `{"body":"Looks good.","event":"COMMENT"}`,
	api.ToolAddLabels:               `{"labels":["go"]}`,
	api.ToolCreateIssue:             `{"title":"Evict stale entries","body":"The cache grows."}`,
}

var (
	// ownClaim is a tool's own text speaking of who approves its calls.
	ownClaim     = regexp.MustCompile(`(?i)\bperson\b|\bapproval\b|\bapproves\b|\bwithout asking\b`)
	claimsAlways = "A person approves the exact call before it runs."
	claimsNever  = "It runs at once, without a person's approval."
	claimsAllow  = regexp.MustCompile(`only when its labels are all among: ([^;]+); a call naming anything else waits for a person`)
)

// TestEveryToolsDescriptionSaysWhatItsGateDoesForEachAgent reads, for every
// agent and every tool it is offered, what the model is told about approval,
// and compares it with what Check decides for real calls.
func TestEveryToolsDescriptionSaysWhatItsGateDoesForEachAgent(t *testing.T) {
	reg := agents.MustBuiltin(nil)
	for _, a := range reg.Agents() {
		for _, spec := range reg.Specs(a) {
			t.Run(a.Name+"/"+spec.Name, func(t *testing.T) {
				own, _ := reg.Tool(spec.Name)
				require.NotRegexp(t, ownClaim, own.Spec().Description,
					"only the registry's note may speak of approval, so the tool's own text cannot contradict the gate")
				args, ok := sampleArgs[spec.Name]
				require.True(t, ok, "no sample call of %s", spec.Name)
				asks := func(args string) bool {
					c, refusal := reg.Check(a, api.ToolCall{ID: "c", Name: spec.Name, Arguments: json.RawMessage(args)}, triagePull)
					require.Empty(t, refusal, args)
					return c.Ask
				}
				claims := 0
				if strings.Contains(spec.Description, claimsAlways) {
					claims++
					require.True(t, asks(args), "the description says a person approves")
				}
				if strings.Contains(spec.Description, claimsNever) {
					claims++
					require.False(t, asks(args), "the description says it runs at once")
				}
				if m := claimsAllow.FindStringSubmatch(spec.Description); m != nil {
					claims++
					for _, label := range strings.Split(m[1], ", ") {
						require.False(t, asks(`{"labels":["`+label+`"]}`), "%q is listed as going unasked", label)
					}
					require.True(t, asks(`{"labels":["automerge"]}`), "a label off the list asks")
					require.True(t, asks(`{"labels":["go","automerge"]}`), "one label off the list makes the call ask")
				}
				require.Equal(t, 1, claims, "exactly one claim about approval: %q", spec.Description)
			})
		}
	}
}

func TestAnAllowListOnAToolItCannotGovernIsRefused(t *testing.T) {
	for name, at := range map[string]tools.AgentTool{
		"a read":                    {Name: api.ToolGetPullRequest, Allow: []string{"go"}},
		"an always-asked action":    {Name: api.ToolCreateIssue, Allow: []string{"go"}},
		"a scoped action that asks": {Name: api.ToolAddLabels, Ask: true, Allow: []string{"go"}},
		"a blank label":             {Name: api.ToolAddLabels, Allow: []string{" "}},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := agents.BuiltinWith(nil, agents.Extension{Agents: []tools.Agent{{Name: "ops", Tools: []tools.AgentTool{at}}}})
			require.ErrorContains(t, err, "Allow")
		})
	}
}

func TestAScopedActionGrantedWithoutAnAllowListAsksForEveryCall(t *testing.T) {
	reg, err := agents.BuiltinWith(nil, agents.Extension{Agents: []tools.Agent{{Name: "ops", Tools: []tools.AgentTool{{Name: api.ToolAddLabels}}}}})
	require.NoError(t, err)
	ops := mustAgent(t, reg, "ops")
	c, refusal := reg.Check(ops, api.ToolCall{ID: "c", Name: api.ToolAddLabels, Arguments: json.RawMessage(`{"labels":["go"]}`)}, triagePull)
	require.Empty(t, refusal)
	require.True(t, c.Ask)
	require.Contains(t, reg.Specs(ops)[0].Description, claimsAlways)
}
