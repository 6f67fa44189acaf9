package tools_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/tools"
)

var pr = api.Target{Owner: "acme", Repo: "widgets", PullNumber: 1}

const (
	postSchema   = `{"type":"object","properties":{"body":{"type":"string","minLength":1}},"required":["body"],"additionalProperties":false}`
	pinnedSchema = `{"type":"object","properties":{"body":{"type":"string"},"owner":{"type":"string"},"repo":{"type":"string"},"pullNumber":{"type":"integer"}},"additionalProperties":false}`
	numberSchema = `{"type":"object","properties":{"body":{"type":"string"},"pullNumber":{"type":"integer"}},"additionalProperties":false}`
	queueSchema  = `{"type":"object","properties":{"note":{"type":"string"},"queue":{"type":"string"}},"additionalProperties":false}`
)

// checker is a registry with a reader, actions of every gate and a Scoped
// action, and one agent offering them all.
type checker struct {
	r     *tools.Registry
	agent tools.Agent
	seen  []tools.Call
}

func newChecker(t *testing.T) *checker {
	t.Helper()
	c := &checker{r: tools.NewRegistry()}
	post := action("post", postSchema)
	post.seen = &c.seen
	for _, add := range []struct {
		tool tools.Tool
		gate tools.Gate
	}{
		{reader("lookup"), tools.NeverAsk},
		{post, tools.AlwaysAsk},
		{action("pinned", pinnedSchema), tools.AlwaysAsk},
		{action("numbered", numberSchema), tools.AlwaysAsk},
		{action("queue_note", queueSchema), tools.AlwaysAsk},
		{action("quiet", postSchema), tools.NeverAsk},
		{action("maybe", postSchema), tools.AgentDecides},
		{scopedTool{action("add_labels", `{"type":"object","properties":{"labels":{"type":"array","items":{"type":"string"}}},"required":["labels"]}`)}, tools.AgentDecides},
	} {
		require.NoError(t, c.r.Add(add.tool, add.gate))
	}
	c.agent = tools.Agent{Name: "reviewer", Tools: []tools.AgentTool{
		{Name: "lookup", Optional: true}, {Name: "post"}, {Name: "pinned", NoEdit: true}, {Name: "numbered"},
		{Name: "queue_note"}, {Name: "quiet"}, {Name: "maybe"}, {Name: "add_labels", Allow: []string{"bug", "docs"}},
	}}
	require.NoError(t, c.r.AddAgent(c.agent))
	return c
}

func (c *checker) check(tool, args string, target api.Target) (tools.Checked, string) {
	return c.r.Check(c.agent, api.ToolCall{ID: "call-1", Name: tool, Arguments: json.RawMessage(args)}, target)
}

// refused asserts that the call is refused with want, and that nothing of
// it is handed on to run.
func (c *checker) refused(t *testing.T, tool, args string, target api.Target) string {
	t.Helper()
	got, refusal := c.check(tool, args, target)
	require.NotEmpty(t, refusal, "%s %s", tool, args)
	require.Equal(t, tools.Checked{}, got, "a refused call carries nothing to run")
	return refusal
}

func TestCheckRefusesAToolTheAgentDoesNotOfferOrNobodyRegistered(t *testing.T) {
	c := newChecker(t)
	narrow := tools.Agent{Name: "reader", Tools: []tools.AgentTool{{Name: "lookup"}, {Name: "ghost"}}}
	for _, name := range []string{"post", "ghost", "delete_repo", ""} {
		got, refusal := c.r.Check(narrow, api.ToolCall{Name: name, Arguments: json.RawMessage(`{"body":"hi"}`)}, pr)
		require.Equal(t, `unknown tool "`+name+`"`, refusal)
		require.Equal(t, tools.Checked{}, got)
	}
	_, refusal := c.r.Check(narrow, api.ToolCall{Name: "lookup", Arguments: json.RawMessage(`{}`)}, pr)
	require.Empty(t, refusal)
}

func TestCheckReadsArgumentsInEveryFormAProviderSends(t *testing.T) {
	c := newChecker(t)
	for args, want := range map[string]string{
		``:                   `{}`,
		" \n\t":              `{}`,
		`{}`:                 `{}`,
		`  {"q":"x"}  `:      `{"q":"x"}`,
		`"{\"q\":\"x\"}"`:    `{"q":"x"}`,
		`" {\"q\":\"x\"} "`:  `{"q":"x"}`,
		`""`:                 `{}`,
		`null`:               `{}`, // a provider's "no arguments"
		`"   "`:              `{}`,
		`{"q":"a\u00e9\"b"}`: `{"q":"aé\"b"}`,
	} {
		got, refusal := c.check("lookup", args, pr)
		require.Empty(t, refusal, "%q", args)
		require.Equal(t, want, string(got.Call.Args), "%q", args)
	}
}

func TestCheckRefusesArgumentsThatAreNotOneJSONObject(t *testing.T) {
	c := newChecker(t)
	for args, want := range map[string]string{
		`"not json"`:      `invalid arguments for lookup: not valid JSON: "not json"`,
		`"{\"q\":"`:       `invalid arguments for lookup: not valid JSON: "{\"q\":"`,
		`[1,2]`:           `invalid arguments for lookup: want a JSON object`,
		`42`:              `invalid arguments for lookup: want a JSON object`,
		`"null"`:          `invalid arguments for lookup: want a JSON object`,
		`"[1]"`:           `invalid arguments for lookup: want a JSON object`,
		`{"q":`:           `invalid arguments for lookup: want a JSON object`,
		`{"q":"x"} {}`:    `invalid arguments for lookup: more than one JSON value`,
		`"{} {\"q\":1}"`:  `invalid arguments for lookup: not valid JSON: "{} {\"q\":1}"`,
		`{"q":"x"} trail`: `invalid arguments for lookup: more than one JSON value`,
	} {
		require.Equal(t, want, c.refused(t, "lookup", args, pr), "%q", args)
	}
}

func TestCheckQuotesAtMost200BytesOfArgumentsThatAreNotJSON(t *testing.T) {
	c := newChecker(t)
	long := strings.Repeat("x", 300)
	quoted, _ := json.Marshal(long)
	refusal := c.refused(t, "lookup", string(quoted), pr)
	require.Equal(t, `invalid arguments for lookup: not valid JSON: "`+strings.Repeat("x", 200)+`"`, refusal)
}

func TestCheckRefusesArgumentsTheSchemaRefuses(t *testing.T) {
	c := newChecker(t)
	for tool, args := range map[string]string{
		"lookup":     `{"q":1}`,
		"post":       `{}`,
		"quiet":      `{"body":""}`,
		"maybe":      `{"body":"hi","extra":true}`,
		"add_labels": `{"labels":"bug"}`,
	} {
		refusal := c.refused(t, tool, args, pr)
		require.True(t, strings.HasPrefix(refusal, "invalid arguments for "+tool+": "), refusal)
	}
	require.Empty(t, c.seen, "no preview of a refused call is asked for")
}

func TestCheckHoldsEveryCallToTheRunsPullRequest(t *testing.T) {
	c := newChecker(t)
	refuse := "refused: post may only act on acme/widgets#1"
	for _, args := range []string{
		`{"body":"hi","owner":"evil"}`,
		`{"body":"hi","owner":"ACME"}`,
		`{"body":"hi","owner":7}`,
		`{"body":"hi","owner":null}`,
		`{"body":"hi","repo":"gadgets"}`,
		`{"body":"hi","repo":"evil/widgets"}`,
		`{"body":"hi","repo":"acme/gadgets"}`,
		`{"body":"hi","repo":["widgets"]}`,
		`{"body":"hi","pullNumber":2}`,
		`{"body":"hi","pullNumber":-1}`,
		`{"body":"hi","pullNumber":1.5}`,
		`{"body":"hi","pullNumber":"1"}`,
		`{"body":"hi","owner":"acme","repo":"widgets","pullNumber":2}`,
	} {
		require.Equal(t, refuse, c.refused(t, "post", args, pr), args)
	}
	// A pin the schema does not take is dropped once it matches, so that a
	// model repeating the run's own pull request is not refused for it.
	for _, args := range []string{
		`{"body":"hi","owner":"acme","repo":"widgets","pullNumber":1}`,
		`{"body":"hi","repo":"acme/widgets"}`,
		`{"body":"hi","owner":"","repo":"","pullNumber":0}`,
	} {
		got, refusal := c.check("post", args, pr)
		require.Empty(t, refusal, args)
		require.Equal(t, `{"body":"hi"}`, string(got.Call.Args), args)
	}
}

func TestCheckKeepsThePinsATakesAsArguments(t *testing.T) {
	c := newChecker(t)
	got, refusal := c.check("pinned", `{"pullNumber":1,"repo":"widgets","owner":"acme","body":"hi"}`, pr)
	require.Empty(t, refusal)
	require.Equal(t, `{"body":"hi","owner":"acme","pullNumber":1,"repo":"widgets"}`, string(got.Call.Args))

	got, refusal = c.check("numbered", `{"body":"hi","owner":"acme","pullNumber":1}`, pr)
	require.Empty(t, refusal)
	require.Equal(t, `{"body":"hi","pullNumber":1}`, string(got.Call.Args), "only the declared pin stays")

	require.Equal(t, "refused: numbered may only act on acme/widgets#1",
		c.refused(t, "numbered", `{"body":"hi","pullNumber":9}`, pr), "a declared pin is still held to the run's")
}

func TestCheckHoldsACallToATargetOfAnotherKindByItsFields(t *testing.T) {
	c := newChecker(t)
	queue := api.Target{Kind: "support_queue", Fields: map[string]string{"queue": "support", "region": "eu"}}
	refuse := "refused: lookup may only act on support_queue queue=support region=eu"
	for _, args := range []string{`{"queue":"billing"}`, `{"region":"us"}`, `{"queue":7}`, `{"queue":null}`, `{"region":"EU"}`} {
		require.Equal(t, refuse, c.refused(t, "lookup", args, queue), args)
	}
	got, refusal := c.check("lookup", `{"queue":"support","region":"","q":"x"}`, queue)
	require.Empty(t, refusal)
	require.Equal(t, `{"q":"x"}`, string(got.Call.Args), "matching pins the schema does not take are dropped")

	got, refusal = c.check("queue_note", `{"queue":"support","region":"eu","note":"n"}`, queue)
	require.Empty(t, refusal)
	require.Equal(t, `{"note":"n","queue":"support"}`, string(got.Call.Args), "a declared field stays")
	require.Equal(t, queue, got.Call.Target)

	// A pull request's field names are no pin of another kind: the schema
	// judges them like any other argument.
	require.True(t, strings.HasPrefix(c.refused(t, "lookup", `{"owner":"acme"}`, queue), "invalid arguments for lookup: "))
}

func TestCheckHandsAReadOnWithoutApprovalOrPreview(t *testing.T) {
	c := newChecker(t)
	got, refusal := c.check("lookup", `{"q":"x"}`, pr)
	require.Empty(t, refusal)
	require.Equal(t, tools.Checked{
		Spec:     c.r.Specs(tools.Agent{Tools: []tools.AgentTool{{Name: "lookup"}}})[0],
		Call:     tools.Call{Args: json.RawMessage(`{"q":"x"}`), Target: pr},
		Optional: true,
	}, got)
	require.Contains(t, got.Spec.Description, "It runs at once")
}

func TestCheckedActionIsBoundToItsExactCall(t *testing.T) {
	c := newChecker(t)
	got, refusal := c.check("post", `{ "body" : "hi" }`, pr)
	require.Empty(t, refusal)
	canonical := json.RawMessage(`{"body":"hi"}`)
	require.Equal(t, tools.Call{Args: canonical, Target: pr}, got.Call)
	require.Equal(t, []tools.Call{{Args: canonical, Target: pr}}, c.seen, "the preview is of the canonical call")
	require.True(t, got.Ask)
	require.True(t, got.Editable)
	require.False(t, got.Optional)
	require.NotNil(t, got.Action)
	require.Equal(t, "post", got.Action.Spec().Name)
	require.Equal(t, "the exact text", got.Preview)
	require.Equal(t, "acme/widgets#1", got.Touches)
	require.Equal(t, api.ToolArgsHash(pr, "post", canonical), got.ArgsHash)
	require.Equal(t, "post", got.Spec.Name)

	other, _ := c.check("post", `{"body":"hi!"}`, pr)
	require.NotEqual(t, got.ArgsHash, other.ArgsHash, "other arguments, another hash")
	elsewhere, _ := c.check("post", `{"body":"hi"}`, api.Target{Owner: "acme", Repo: "widgets", PullNumber: 2})
	require.NotEqual(t, got.ArgsHash, elsewhere.ArgsHash, "another pull request, another hash")
	quiet, _ := c.check("quiet", `{"body":"hi"}`, pr)
	require.NotEqual(t, got.ArgsHash, quiet.ArgsHash, "another tool, another hash")
}

func TestCheckSaysWhetherAnActionAsksAndMayBeEdited(t *testing.T) {
	c := newChecker(t)
	for _, tc := range []struct {
		tool, args     string
		ask, editable  bool
		noteBeginsWith string
	}{
		{"post", `{"body":"hi"}`, true, true, "A person approves"},
		{"pinned", `{"body":"hi"}`, true, false, "A person approves"},
		{"quiet", `{"body":"hi"}`, false, true, "It runs at once"},
		{"maybe", `{"body":"hi"}`, false, true, "It runs at once"},
		{"add_labels", `{"labels":["bug","docs"]}`, false, true, "It runs without a person's approval only when its labels"},
		{"add_labels", `{"labels":["bug","wontfix"]}`, true, true, "It runs without a person's approval only when its labels"},
	} {
		got, refusal := c.check(tc.tool, tc.args, pr)
		require.Empty(t, refusal, tc.tool)
		require.NotNil(t, got.Action, tc.tool)
		require.Equal(t, tc.ask, got.Ask, "%s %s", tc.tool, tc.args)
		require.Equal(t, tc.editable, got.Editable, tc.tool)
		require.NotEmpty(t, got.ArgsHash, "every action is bound, asked or not")
		require.Contains(t, got.Spec.Description, tc.noteBeginsWith, tc.tool)
	}

	asking := tools.Agent{Name: "careful", Tools: []tools.AgentTool{{Name: "maybe", Ask: true}}}
	got, refusal := c.r.Check(asking, api.ToolCall{Name: "maybe", Arguments: json.RawMessage(`{"body":"hi"}`)}, pr)
	require.Empty(t, refusal)
	require.True(t, got.Ask, "the agent asks for an AgentDecides action")
}

func TestCheckRefusesWhatTheActionItselfRefuses(t *testing.T) {
	r := tools.NewRegistry()
	untouchable := action("untouchable", postSchema)
	untouchable.touchesErr = errors.New("not the run's pull request")
	unpreviewable := action("unpreviewable", postSchema)
	unpreviewable.previewErr = errors.New("the body holds a marker")
	require.NoError(t, r.Add(untouchable, tools.AlwaysAsk))
	require.NoError(t, r.Add(unpreviewable, tools.NeverAsk))
	a := tools.Agent{Name: "reviewer", Tools: []tools.AgentTool{{Name: "untouchable"}, {Name: "unpreviewable"}}}
	require.NoError(t, r.AddAgent(a))

	for tool, want := range map[string]string{
		"untouchable":   "refused: not the run's pull request",
		"unpreviewable": "refused: the body holds a marker",
	} {
		got, refusal := r.Check(a, api.ToolCall{Name: tool, Arguments: json.RawMessage(`{"body":"hi"}`)}, pr)
		require.Equal(t, want, refusal)
		require.Equal(t, tools.Checked{}, got)
	}
}
