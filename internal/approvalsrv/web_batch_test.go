package approvalsrv

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
)

const batchPagePath = "/runs/run-1/decision"

// twoWaitingPage is alice's browser on twoWaitingRun(batches) as run-1,
// with the run page open.
func twoWaitingPage(t *testing.T, batches bool) (h *harness, b *browser, page string, hidden url.Values) {
	t.Helper()
	h = newHarness(t, testConfig(), nil)
	h.runs.put("run-1", twoWaitingRun(batches))
	b = h.browser(map[string]string{"X-Forwarded-User": "alice"})
	page, hidden = b.openRun("run-1")
	return h, b, page, hidden
}

func TestRunPageWithTwoWaitingActionsShowsEachWithItsFormAndOneApproveAll(t *testing.T) {
	_, _, page, _ := twoWaitingPage(t, true)

	forms := pageForms(t, page)

	require.Len(t, forms, 3)
	require.Equal(t, []string{act1Hash}, forms["/runs/run-1/actions/act-1/decision"]["argsHash"])
	require.Equal(t, []string{act2Hash}, forms["/runs/run-1/actions/act-2/decision"]["argsHash"])
	require.Equal(t, []string{"act-1", "act-2"}, forms[batchPagePath]["actionId"])
	require.Equal(t, []string{act1Hash, act2Hash}, forms[batchPagePath]["argsHash"])
	require.Contains(t, page, "Approve all 2")
	require.Contains(t, page, `id="preview"`)
	require.Contains(t, page, `id="preview-2"`)
	require.Contains(t, page, "File an issue: TODO in cache.go.")
	requestIDs := map[string]bool{}
	for _, f := range forms {
		requestIDs[f.Get("requestId")] = true
	}
	require.Len(t, requestIDs, 3, "each form is its own request")
}

func TestRunPageOfAnAgentWithoutBatchesHasNoApproveAll(t *testing.T) {
	_, _, page, _ := twoWaitingPage(t, false)

	forms := pageForms(t, page)

	require.Len(t, forms, 2)
	require.NotContains(t, forms, batchPagePath)
	require.NotContains(t, page, "Approve all")
}

func TestApproveAllFormSendsOneBatchSignal(t *testing.T) {
	h, b, page, _ := twoWaitingPage(t, true)
	form := pageForms(t, page)[batchPagePath]
	form.Set("decision", "approve")

	resp := b.submit(batchPagePath, form, nil)

	require.Equal(t, http.StatusAccepted, resp.StatusCode)
	require.Equal(t, []api.ApprovalSignal{{
		ActionID: "act-1", ArgsHash: act1Hash, Batch: []api.ActionRef{{ActionID: "act-2", ArgsHash: act2Hash}},
		Decision: "approve", Approver: "alice", RequestID: form.Get("requestId"), Channel: "web page",
	}}, h.runs.approvalSignals())
	after := readAll(t, b.do(http.MethodGet, "/runs/run-1", nil, nil))
	require.NotContains(t, after, "Approve all", "nothing is left to approve")
}

func TestApproveAllFormRefusals(t *testing.T) {
	cases := map[string]struct {
		batches bool
		formRefusal
	}{
		"missing CSRF token":     {true, formRefusal{edit: func(f url.Values) { f.Del("csrf") }, want: http.StatusForbidden}},
		"cross-site post":        {true, formRefusal{extra: map[string]string{"Sec-Fetch-Site": "cross-site"}, want: http.StatusForbidden}},
		"a hash short":           {true, formRefusal{edit: func(f url.Values) { f["argsHash"] = f["argsHash"][:1] }, want: http.StatusBadRequest}},
		"a stale hash":           {true, formRefusal{edit: func(f url.Values) { f["argsHash"][1] = strings.Repeat("0", 64) }, want: http.StatusConflict}},
		"agent takes no batches": {false, formRefusal{want: http.StatusUnprocessableEntity}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			h, b, _, hidden := twoWaitingPage(t, c.batches)
			form := url.Values{"csrf": {hidden.Get("csrf")}, "requestId": {"web-1"}, "decision": {"approve"},
				"actionId": {"act-1", "act-2"}, "argsHash": {act1Hash, act2Hash}}

			c.requireRefused(t, h, b, batchPagePath, form)
		})
	}
}

func TestFormWithAStaleArgsHashAnswers409AndSendsNothing(t *testing.T) {
	h := waitingHarness(t, nil, "alice")
	b := h.browser(map[string]string{"X-Forwarded-User": "alice"})
	page, _ := b.openRun("run-1")
	form := pageForms(t, page)[decisionPagePath]
	require.Equal(t, act1Hash, form.Get("argsHash"))
	form.Set("decision", "approve")
	form.Set("argsHash", commentHash("what the page showed before"))

	resp := b.submit(decisionPagePath, form, nil)

	require.Equal(t, http.StatusConflict, resp.StatusCode)
	require.Contains(t, replyOf(t, resp)["error"], "no longer has the input")
	require.Empty(t, h.runs.approvalSignals())
}
