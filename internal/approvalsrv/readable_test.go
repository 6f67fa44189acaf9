package approvalsrv

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
)

// recommendationPreview is httptool's preview of the recommender's save:
// the request line, then the minified body that is approved.
const recommendationPreview = "POST http://merchants.test/recommendations\n" +
	`{"partial":true,"picks":[{"id":"m-3","name":"Noodle Bar","price_for_two":60,"reason":"in budget, quiet"},` +
	`{"id":"m-7","name":"Taco <b>Stand</b>","price_for_two":40,"coupon":"TACO10","reason":"coupon"}],` +
	`"request":{"budget":150,"city":"riverside","party_size":2}}`

func recommendationRun() api.RunSnapshot {
	snap := waitingRun("alice")
	a := &snap.Actions[0]
	a.ToolName, a.Preview, a.Target, a.PreviewKind = "save_recommendation", recommendationPreview, "merchants.test/recommendations", api.PreviewHTTP
	a.Words = &api.ToolWords{Noun: "recommendation", Verb: "save", Past: "saved"}
	snap.PendingAction = a
	snap.Run.Repo, snap.Run.PullNumber = "", 0
	snap.Run.Agent, snap.Run.TargetLabel = "recommend", "table for 2 in riverside (budget 150)"
	snap.Run.Target = &api.Target{Kind: "recommendation_request"}
	return snap
}

func TestAStructuredPreviewIsLaidOutAsMethodURLTablesAndPrettyBodyBesideTheExactBytes(t *testing.T) {
	h := newHarness(t, testConfig(), nil)
	h.runs.put("run-1", recommendationRun())
	page, _ := h.browser(map[string]string{"X-Forwarded-User": "alice"}).openRun("run-1")
	require.Contains(t, page, `<dt>Method</dt><dd><code>POST</code></dd><dt>URL</dt><dd><code>http://merchants.test/recommendations</code></dd>`)
	require.Contains(t, page, "<caption>picks</caption>")
	require.Contains(t, page, `<th scope="col">name</th><th scope="col">id</th>`, "a record's name first, then its id")
	require.Contains(t, page, `<td data-label="name">Taco &lt;b&gt;Stand&lt;/b&gt;</td>`, "a merchant's name is text, escaped")
	require.Contains(t, page, "<caption>request</caption>")
	require.Contains(t, page, `<td data-label="value">riverside</td>`)
	require.Contains(t, page, `<td data-label="field">partial</td><td data-label="value">true</td>`)
	require.Contains(t, page, `<td data-label="reason">in budget, quiet</td>`, "a reason that repeats no column stays whole")
	require.NotContains(t, page, "left out", "nothing was left out")
	require.Contains(t, page, "Body, pretty-printed")
	require.Contains(t, page, "\n  &#34;picks&#34;: [\n", "the body pretty-printed")
	require.Contains(t, page, `aria-label="Preview">POST http://merchants.test/recommendations`+"\n{&#34;partial&#34;:true", "the exact bytes beside it, as approved")
	require.Contains(t, page, "table for 2 in riverside (budget 150)", "the target by name")
	require.NotContains(t, page, "#0")
}

func TestTheInboxShowsAStructuredPreviewsRequestAndFirstRows(t *testing.T) {
	v := readableExcerpt("save_recommendation", recommendationPreview)
	require.NotNil(t, v)
	require.Equal(t, "POST", v.Method)
	require.Empty(t, v.Body, "the inbox shows no full body")
	require.True(t, v.HasBody, "yet the request has one: the excerpt never says \"Body none\"")
	require.NotEmpty(t, v.Tables)
}

func TestAPreviewThatIsNoRequestOrJSONReadsRawOnly(t *testing.T) {
	require.Nil(t, readablePreview(api.PreviewHTTP, "x", "not a request line"))
	require.Nil(t, readablePreview(api.PreviewJSON, "x", ""))
	require.Nil(t, readablePreview(api.PreviewText, "x", "anything"))
	body, tables := structured("not json")
	require.Equal(t, "not json", body)
	require.Empty(t, tables)
	require.Equal(t, api.PreviewText, previewKindOf("", "tool", "GET /relative\nbody"), "a relative URL is no request line")
}

func TestTheRunPageShowsTheRunsAnswer(t *testing.T) {
	h := newHarness(t, testConfig(), nil)
	snap := recommendationRun()
	snap.Run.Status, snap.Run.Outcome = api.RunCompleted, api.OutcomePartial
	snap.Run.Result = "Funnel: 12 merchants, 5 in budget, coupons unavailable.\n1. Noodle Bar"
	h.runs.put("run-1", snap)
	page, _ := h.browser(map[string]string{"X-Forwarded-User": "alice"}).openRun("run-1")
	require.Contains(t, page, "The run's answer")
	require.Contains(t, page, "Funnel: 12 merchants, 5 in budget, coupons unavailable.\n1. Noodle Bar")
}

// The recommender's picks: each reason is price, noise, rating and coupon
// again, so the laid-out table leaves it out and says so; a reason with
// something of its own keeps that part only.
func TestARecordsReasonLosesOnlyThePartsThatRepeatItsRow(t *testing.T) {
	_, tables := structured(`{"picks":[` +
		`{"id":"m01","name":"Lantern","price_for_two":120,"noise":"quiet","rating":4.6,"coupon":"20 off a set for two","discount":20,"reason":"120 for two, quiet, rated 4.6, coupon: 20 off a set for two"},` +
		`{"id":"m04","name":"Paper Crane","price_for_two":140,"noise":"moderate","rating":4.3,"reason":"140 for two, moderate, rated 4.3"}]}`)
	require.Len(t, tables, 1)
	require.NotContains(t, tables[0].Columns, "reason")
	require.Equal(t, "Each reason only repeats the other columns, so it is left out.", tables[0].Note)

	_, tables = structured(`{"picks":[` +
		`{"id":"m01","name":"Lantern","price_for_two":120,"rating":4.6,"reason":"120 for two, rated 4.6, near the river"},` +
		`{"id":"m02","name":"Bistro","price_for_two":1200,"rating":4.4,"reason":"120 for two, rated 14.4, garden"}]}`)
	require.Len(t, tables, 1)
	reason := slices.Index(tables[0].Columns, "reason")
	require.GreaterOrEqual(t, reason, 0)
	require.Equal(t, "near the river", tables[0].Rows[0][reason])
	require.Equal(t, "120 for two, rated 14.4, garden", tables[0].Rows[1][reason], "a number inside another, or a different number, is no repeat")
	require.Contains(t, tables[0].Note, "Parts of reason that repeat another column are left out.")
}
