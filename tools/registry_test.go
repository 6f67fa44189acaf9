package tools_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/tools"
)

func TestAddRefusesAToolNameOutsideItsAlphabet(t *testing.T) {
	for _, name := range []string{"", "Read", "1read", "_read", "read-file", "read file", "read.file", strings.Repeat("a", 65)} {
		err := tools.NewRegistry().Add(reader(name), tools.NeverAsk)
		require.ErrorContains(t, err, "want lower case letters, digits and _", "%q", name)
	}
	for _, name := range []string{"r", "read_file", "read2", strings.Repeat("a", 64)} {
		require.NoError(t, tools.NewRegistry().Add(reader(name), tools.NeverAsk), "%q", name)
	}
}

func TestAddRefusesAToolRegisteredTwice(t *testing.T) {
	r := tools.NewRegistry()
	require.NoError(t, r.Add(reader("lookup"), tools.NeverAsk))
	err := r.Add(action("lookup", objectSchema), tools.AlwaysAsk)
	require.EqualError(t, err, `tool "lookup" is registered twice`)
	got, ok := r.Tool("lookup")
	require.True(t, ok)
	require.IsType(t, readTool{}, got, "the first registration stands")
}

func TestAddRefusesASideEffectThatDisagreesWithTheToolsKind(t *testing.T) {
	lying := reader("lookup")
	lying.spec.SideEffect = true
	require.EqualError(t, tools.NewRegistry().Add(lying, tools.NeverAsk),
		`tool "lookup": SideEffect is true, but it is not an Action`)

	quiet := action("post", objectSchema)
	quiet.spec.SideEffect = false
	require.EqualError(t, tools.NewRegistry().Add(quiet, tools.AlwaysAsk),
		`tool "post": SideEffect is false, but it is an Action`)
}

func TestAddTakesOnlyTheKnownGatesAndNeverAskForAReader(t *testing.T) {
	require.EqualError(t, tools.NewRegistry().Add(action("post", objectSchema), tools.Gate("sometimes")),
		`tool "post": unknown gate "sometimes"`)
	for _, g := range []tools.Gate{tools.AlwaysAsk, tools.AgentDecides} {
		require.EqualError(t, tools.NewRegistry().Add(reader("lookup"), g),
			`tool "lookup" reads: it takes NeverAsk, not "`+string(g)+`"`)
	}
	for _, g := range []tools.Gate{tools.AlwaysAsk, tools.NeverAsk, tools.AgentDecides} {
		require.NoError(t, tools.NewRegistry().Add(action("post", objectSchema), g), g)
	}
}

func TestAddRefusesParametersThatAreNotAnObjectSchema(t *testing.T) {
	for schema, want := range map[string]string{
		`not json`:          `tool "lookup": parameters are not a JSON schema: `,
		`{"type":"string"}`: `tool "lookup": parameters describe "string"; a tool takes an object`,
		`{}`:                `tool "lookup": parameters describe ""; a tool takes an object`,
		`{"type":"object","$ref":"#/$defs/nope"}`: `tool "lookup": parameters schema: `,
		`{"type":"object","pattern":"(unclosed"}`: `tool "lookup": parameters schema: `,
	} {
		tool := reader("lookup")
		tool.spec.Parameters = json.RawMessage(schema)
		r := tools.NewRegistry()
		err := r.Add(tool, tools.NeverAsk)
		require.ErrorContains(t, err, want, schema)
		_, registered := r.Tool("lookup")
		require.False(t, registered, "a refused tool is not registered: %s", schema)
	}
}

func TestToolAndActionFindWhatWasRegistered(t *testing.T) {
	r := tools.NewRegistry()
	require.NoError(t, r.Add(reader("lookup"), tools.NeverAsk))
	require.NoError(t, r.Add(action("post", objectSchema), tools.AlwaysAsk))

	got, ok := r.Tool("lookup")
	require.True(t, ok)
	require.Equal(t, "lookup", got.Spec().Name)
	_, ok = r.Tool("missing")
	require.False(t, ok)

	act, ok := r.Action("post")
	require.True(t, ok)
	require.Equal(t, "post", act.Spec().Name)
	act, ok = r.Action("lookup")
	require.False(t, ok, "a reader is no action")
	require.Nil(t, act)
	_, ok = r.Action("missing")
	require.False(t, ok)
}

func registryWith(t *testing.T) *tools.Registry {
	t.Helper()
	r := tools.NewRegistry()
	require.NoError(t, r.Add(reader("lookup"), tools.NeverAsk))
	require.NoError(t, r.Add(action("post", objectSchema), tools.AlwaysAsk))
	require.NoError(t, r.Add(scopedTool{action("add_labels", `{"type":"object","properties":{"labels":{"type":"array"}}}`)}, tools.AgentDecides))
	return r
}

func TestAddAgentRefusesANameOutsideItsAlphabet(t *testing.T) {
	r := registryWith(t)
	for _, name := range []string{"", "Reviewer", "pr_review", "-pr", strings.Repeat("a", 64)} {
		require.ErrorContains(t, r.AddAgent(tools.Agent{Name: name}), "want lower case letters, digits and -", "%q", name)
	}
	_, err := r.Agent("Reviewer")
	require.Error(t, err)
}

func TestAddAgentRefusesAnAgentRegisteredTwice(t *testing.T) {
	r := registryWith(t)
	require.NoError(t, r.AddAgent(tools.Agent{Name: "reviewer", SystemPrompt: "first"}))
	require.EqualError(t, r.AddAgent(tools.Agent{Name: "reviewer", SystemPrompt: "second"}), `agent "reviewer" is registered twice`)
	a, err := r.Agent("reviewer")
	require.NoError(t, err)
	require.Equal(t, "first", a.SystemPrompt)
	require.Len(t, r.Agents(), 1)
}

func TestAddAgentRefusesNegativeMaxStepsAndTakesZero(t *testing.T) {
	r := registryWith(t)
	require.EqualError(t, r.AddAgent(tools.Agent{Name: "looper", MaxSteps: -1}), `agent "looper": MaxSteps -1 is negative`)
	require.NoError(t, r.AddAgent(tools.Agent{Name: "looper", MaxSteps: 0}))
}

func TestAddAgentRefusesABadTargetKind(t *testing.T) {
	r := registryWith(t)
	require.EqualError(t, r.AddAgent(tools.Agent{Name: "support", TargetKind: "Support-Queue"}),
		`agent "support": target kind "Support-Queue": want lower case letters, digits and _`)
	require.NoError(t, r.AddAgent(tools.Agent{Name: "support", TargetKind: "support_queue"}))
	require.NoError(t, r.AddAgent(tools.Agent{Name: "reviewer"}), "no kind is a pull request")
}

func TestAddAgentRefusesALabelThatIsNoTemplateOrDisagreesWithItsKind(t *testing.T) {
	r := registryWith(t)
	for _, label := range []string{"#{Channel}", "#{channel", "channel}", "{}"} {
		require.Error(t, r.AddAgent(tools.Agent{Name: "chat", TargetKind: "chat_channel", TargetLabel: label}), "%q", label)
	}
	require.NoError(t, r.AddAgent(tools.Agent{Name: "chat", TargetKind: "chat_channel", TargetLabel: "#{channel}"}))
	require.NoError(t, r.AddAgent(tools.Agent{Name: "chat-too", TargetKind: "chat_channel", TargetLabel: "#{channel}"}))
	require.ErrorContains(t, r.AddAgent(tools.Agent{Name: "chat-other", TargetKind: "chat_channel", TargetLabel: "{channel}"}),
		"a kind reads one way")
}

func TestAddAgentRefusesToolsItCannotOffer(t *testing.T) {
	r := registryWith(t)
	require.EqualError(t, r.AddAgent(tools.Agent{Name: "reviewer", Tools: []tools.AgentTool{{Name: "lookup"}, {Name: "delete_repo"}}}),
		`agent "reviewer": tool "delete_repo" is not registered`)
	require.EqualError(t, r.AddAgent(tools.Agent{Name: "reviewer", Tools: []tools.AgentTool{{Name: "lookup"}, {Name: "post"}, {Name: "lookup"}}}),
		`agent "reviewer" lists tool "lookup" twice`)
	_, err := r.Agent("reviewer")
	require.Error(t, err, "a refused agent is not registered")
}

func TestAddAgentTakesAnAllowListOnlyWhereItTakesEffect(t *testing.T) {
	r := registryWith(t)
	for _, at := range []tools.AgentTool{
		{Name: "post", Allow: []string{"x"}},                   // not Scoped
		{Name: "lookup", Allow: []string{"x"}},                 // a reader
		{Name: "add_labels", Ask: true, Allow: []string{"x"}},  // asks anyway
		{Name: "add_labels", Allow: []string{"bug", " \t"}},    // a blank value
		{Name: "add_labels", Allow: []string{"bug", "", "ok"}}, // an empty one
	} {
		require.Error(t, r.AddAgent(tools.Agent{Name: "labeller", Tools: []tools.AgentTool{at}}), "%+v", at)
	}
	require.NoError(t, r.AddAgent(tools.Agent{Name: "labeller", Tools: []tools.AgentTool{{Name: "add_labels", Allow: []string{"bug", "docs"}}}}))

	forced := tools.NewRegistry()
	require.NoError(t, forced.Add(scopedTool{action("add_labels", objectSchema)}, tools.AlwaysAsk))
	require.ErrorContains(t, forced.AddAgent(tools.Agent{Name: "labeller", Tools: []tools.AgentTool{{Name: "add_labels", Allow: []string{"bug"}}}}),
		`tool "add_labels" takes no Allow list`, "an AlwaysAsk action asks whatever the list says")
}

func TestAgentNamesTheServedAgentsWhenItFindsNone(t *testing.T) {
	r := registryWith(t)
	require.NoError(t, r.AddAgent(tools.Agent{Name: "reviewer"}))
	require.NoError(t, r.AddAgent(tools.Agent{Name: "triage"}))
	_, err := r.Agent("recommender")
	require.EqualError(t, err, `unknown agent "recommender" (this worker serves reviewer, triage)`)
	a, err := r.Agent("triage")
	require.NoError(t, err)
	require.Equal(t, "triage", a.Name)
}

func TestAgentsAreInTheOrderAdded(t *testing.T) {
	r := registryWith(t)
	require.Empty(t, r.Agents())
	for _, name := range []string{"zeta", "alpha", "mid"} {
		require.NoError(t, r.AddAgent(tools.Agent{Name: name}))
	}
	var names []string
	for _, a := range r.Agents() {
		names = append(names, a.Name)
	}
	require.Equal(t, []string{"zeta", "alpha", "mid"}, names)
}

func TestSpecsAreTheAgentsToolsInItsOrderEachSayingWhatItAsks(t *testing.T) {
	r := registryWith(t)
	a := tools.Agent{Name: "reviewer", Tools: []tools.AgentTool{
		{Name: "add_labels", Allow: []string{"bug", "docs"}}, {Name: "post"}, {Name: "lookup"},
	}}
	require.NoError(t, r.AddAgent(a))
	specs := r.Specs(a)
	require.Len(t, specs, 3)
	require.Equal(t, []string{"add_labels", "post", "lookup"}, []string{specs[0].Name, specs[1].Name, specs[2].Name})
	require.Equal(t, "Do add_labels. "+tools.ApprovalNote(tools.ApprovalOutsideAllow, "labels", []string{"bug", "docs"}), specs[0].Description)
	require.Equal(t, "Do post. A person approves the exact call before it runs.", specs[1].Description)
	require.Equal(t, "Read lookup. It runs at once, without a person's approval.", specs[2].Description)
	require.True(t, specs[1].SideEffect)
	require.JSONEq(t, objectSchema, string(specs[2].Parameters))

	registered, _ := r.Tool("post")
	require.Equal(t, "Do post.", registered.Spec().Description, "the note is the agent's, not written into the tool")
	require.Empty(t, r.Specs(tools.Agent{Name: "idle"}))
}

func TestApprovalIsEachAgentsRuleForATool(t *testing.T) {
	r := registryWith(t)
	require.NoError(t, r.Add(action("close", objectSchema), tools.NeverAsk))
	require.NoError(t, r.Add(action("merge", objectSchema), tools.AgentDecides))
	a := tools.Agent{Name: "reviewer", Tools: []tools.AgentTool{
		{Name: "lookup"}, {Name: "post"}, {Name: "close", Ask: true}, {Name: "merge"},
		{Name: "add_labels", Allow: []string{"bug"}},
	}}
	asking := tools.Agent{Name: "careful", Tools: []tools.AgentTool{{Name: "merge", Ask: true}, {Name: "add_labels"}}}
	for _, tc := range []struct {
		agent tools.Agent
		tool  string
		want  tools.Approval
	}{
		{a, "lookup", tools.ApprovalNever},
		{a, "post", tools.ApprovalAlways},
		{a, "close", tools.ApprovalNever}, // NeverAsk whatever the agent says
		{a, "merge", tools.ApprovalNever},
		{a, "add_labels", tools.ApprovalOutsideAllow},
		{asking, "merge", tools.ApprovalAlways},
		{asking, "add_labels", tools.ApprovalAlways}, // nothing listed as harmless
	} {
		got, err := r.Approval(tc.agent, tc.tool)
		require.NoError(t, err)
		require.Equal(t, tc.want, got, "%s %s", tc.agent.Name, tc.tool)
	}
	_, err := r.Approval(a, "delete_repo")
	require.EqualError(t, err, `agent "reviewer" has no tool "delete_repo"`)
	_, err = r.Approval(tools.Agent{Name: "ghost", Tools: []tools.AgentTool{{Name: "unregistered"}}}, "unregistered")
	require.Error(t, err)
}
