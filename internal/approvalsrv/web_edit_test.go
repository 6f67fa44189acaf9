package approvalsrv

import (
	"encoding/json"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
)

// openEditForm is the run page's decision form with its edit fields as the
// page fills them in, as a browser would post it.
func openEditForm(t *testing.T, b *browser) (string, url.Values) {
	t.Helper()
	page, form := b.openRun("run-1")
	form.Set("argsHash", act1Hash)
	form.Set(argsBaseField, `{"body":"Looks good, but `+"`fmt.Println`"+` is left in cache.go."}`)
	form.Set("arg.text.body", "Looks good, but `fmt.Println` is left in cache.go.")
	form.Set(argsRawField, "{\n  \"body\": \"Looks good, but `fmt.Println` is left in cache.go.\"\n}")
	return page, form
}

func TestThePagesEditFormIsFieldsFromTheToolsSchemaWithRawJSONOnlyAsAdvanced(t *testing.T) {
	h := editableHarness(t, "alice")
	page, _ := openEditForm(t, h.browser(map[string]string{"X-Forwarded-User": "alice"}))
	require.Contains(t, page, `<textarea id="arg-1" name="arg.text.body"`, "a long string is a text area")
	require.Contains(t, page, ">Looks good, but `fmt.Println` is left in cache.go.</textarea>", "the body as text, not as JSON")
	require.Contains(t, page, "Advanced: the arguments as raw JSON")
	require.Contains(t, page, `name="argsBase"`)
	require.NotContains(t, page, `name="args"`, "no JSON box in front")
}

func TestThePagesEditFieldsApproveTheEditedArgumentsAndOnlyWithAnApprove(t *testing.T) {
	h := editableHarness(t, "alice")
	b := h.browser(map[string]string{"X-Forwarded-User": "alice"})
	_, form := openEditForm(t, b)
	form.Set("arg.text.body", "Shorter, as alice\r\nwrote it.")
	form.Set("decision", "reject")
	form.Set("reason", "no")
	require.Equal(t, http.StatusAccepted, b.submit(decisionPagePath, form, nil).StatusCode)
	require.Empty(t, h.runs.approvalSignals()[0].Args, "a reject never carries the edit")

	h = editableHarness(t, "alice")
	b = h.browser(map[string]string{"X-Forwarded-User": "alice"})
	_, form = openEditForm(t, b)
	form.Set("arg.text.body", "Shorter, as alice\r\nwrote it.")
	form.Set("decision", "approve")
	resp := b.submit(decisionPagePath, form, nil)
	require.Equal(t, http.StatusAccepted, resp.StatusCode, "%v %v", replyOf(t, resp), form)
	sig := h.runs.approvalSignals()[0]
	require.JSONEq(t, `{"body":"Shorter, as alice\nwrote it."}`, string(sig.Args), "a text area's CRLF is the proposal's LF")
	require.Equal(t, act1Hash, sig.ArgsHash, "bound to the version the page showed")
}

func TestTheRawJSONIsUsedOnlyWhenChangedAndNeverTogetherWithChangedFields(t *testing.T) {
	h := editableHarness(t, "alice")
	b := h.browser(map[string]string{"X-Forwarded-User": "alice"})
	_, form := openEditForm(t, b)
	form.Set(argsRawField, `{"body":"From the advanced box."}`)
	form.Set("decision", "approve")
	require.Equal(t, http.StatusAccepted, b.submit(decisionPagePath, form, nil).StatusCode)
	require.JSONEq(t, `{"body":"From the advanced box."}`, string(h.runs.approvalSignals()[0].Args))

	h = editableHarness(t, "alice")
	b = h.browser(map[string]string{"X-Forwarded-User": "alice"})
	_, form = openEditForm(t, b)
	form.Set(argsRawField, `{"body":"From the advanced box."}`)
	form.Set("arg.text.body", "From the field.")
	form.Set("decision", "approve")
	resp := b.submit(decisionPagePath, form, nil)
	require.Equal(t, http.StatusBadRequest, resp.StatusCode)
	require.Contains(t, replyOf(t, resp)["error"], "both the fields and the raw JSON")
	require.Empty(t, h.runs.approvalSignals())
}

func TestBadEditInputIsAClearErrorAndThePageWithoutScriptKeepsWhatWasTyped(t *testing.T) {
	h := newHarness(t, testConfig(), nil)
	snap := waitingRun("alice")
	snap.Actions[0].Editable = true
	snap.Actions[0].Args = json.RawMessage(`{"body":"Text","count":3,"draft":false,"meta":{"a":1}}`)
	snap.Actions[0].ArgsSchema = json.RawMessage(`{"type":"object","properties":{"body":{"type":"string","maxLength":65000},` +
		`"count":{"type":"integer"},"draft":{"type":"boolean"},"event":{"type":"string","enum":["COMMENT","REQUEST_CHANGES"]},"meta":{"type":"object"}}}`)
	snap.PendingAction = &snap.Actions[0]
	h.runs.put("run-1", snap)
	b := h.browser(map[string]string{"X-Forwarded-User": "alice"})
	page, form := b.openRun("run-1")
	require.Contains(t, page, `name="arg.integer.count" type="number"`)
	require.Contains(t, page, `type="checkbox" id="arg-3" name="arg.bool.draft" value="true"`)
	require.Contains(t, page, `<select id="arg-4" name="arg.enum.event" data-edit-field><option value="" selected>(not set)</option>`)
	require.Contains(t, page, `name="arg.json.meta"`)

	form.Set("argsHash", act1Hash)
	form.Set(argsBaseField, string(snap.Actions[0].Args))
	form.Set("arg.text.body", "My own words, kept.")
	form.Set("arg.integer.count", "three")
	form.Set("arg.json.meta", `{"a":`)
	form.Set("reason", "typed reason")
	form.Set("decision", "approve")
	resp := b.submit(decisionPagePath, form, nil)
	require.Equal(t, http.StatusBadRequest, resp.StatusCode)
	problem := replyOf(t, resp)["error"]
	require.Contains(t, problem, `"count" must be a whole number, not "three"`)
	require.Contains(t, problem, `"meta" is not valid JSON`)

	resp = b.do(http.MethodPost, decisionPagePath, form, nil) // no script
	require.Equal(t, http.StatusBadRequest, resp.StatusCode)
	again := readAll(t, resp)
	require.Contains(t, again, `&#34;count&#34; must be a whole number, not &#34;three&#34;`)
	require.Contains(t, again, ">My own words, kept.</textarea>")
	require.Contains(t, again, `value="three"`)
	require.Contains(t, again, ">typed reason</textarea>")
	require.Contains(t, again, `<details class="edit" open>`)
	require.Empty(t, h.runs.approvalSignals(), "nothing sent")

	form.Set("arg.integer.count", "4")
	form.Set("arg.json.meta", `{"a": 2}`)
	form.Add("arg.bool.draft", "true")
	require.Equal(t, http.StatusAccepted, b.submit(decisionPagePath, form, nil).StatusCode)
	require.JSONEq(t, `{"body":"My own words, kept.","count":4,"draft":true,"meta":{"a":2}}`, string(h.runs.approvalSignals()[0].Args),
		"an empty optional field the proposal did not have stays out")
}

func TestShowChangesDiffsTheEditAgainstTheProposalAndSendsNothing(t *testing.T) {
	h := editableHarness(t, "alice")
	b := h.browser(map[string]string{"X-Forwarded-User": "alice"})
	_, form := openEditForm(t, b)
	form.Set("arg.text.body", "Looks good.")
	form.Set("decision", decisionChanges)
	resp := b.do(http.MethodPost, decisionPagePath+"?part=changes", form, nil)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	part := readAll(t, resp)
	require.Contains(t, part, "<del>- Looks good, but `fmt.Println` is left in cache.go.</del>")
	require.Contains(t, part, "<ins>+ Looks good.</ins>")

	page := readAll(t, b.do(http.MethodPost, decisionPagePath, form, nil)) // no script: the page, as typed
	require.Contains(t, page, "<ins>+ Looks good.</ins>")
	require.Contains(t, page, ">Looks good.</textarea>")
	require.Empty(t, h.runs.approvalSignals())
}

func TestAnActionThatMayNotBeEditedHasNoEditBox(t *testing.T) {
	h := waitingHarness(t, nil, "alice")
	page, _ := h.browser(map[string]string{"X-Forwarded-User": "alice"}).openRun("run-1")
	require.NotContains(t, page, `name="argsBase"`)
	require.NotContains(t, page, "Edit before approving")
}

func TestTheRunPageKeepsEveryVersionOfAnAction(t *testing.T) {
	h := newHarness(t, testConfig(), nil)
	snap := waitingRun("alice")
	decided := testNow.Add(-30 * time.Minute)
	first := snap.Actions[0]
	first.ID, first.State, first.Feedback, first.DecidedBy, first.Reason = "act-0", api.ActionRejected, true, "bob", "Leave out the details."
	first.Preview, first.CreatedAt, first.DecidedAt = "## Review\n\n**6 findings**", testNow.Add(-2*time.Hour), &decided
	last := snap.Actions[0]
	last.State, last.DecidedBy, last.DecidedAt = api.ActionApproved, "alice", &decided
	last.Preview, last.Args = "## Review\n\nNo findings worth a comment.", json.RawMessage(`{"body":"## Review\n\nNo findings worth a comment."}`)
	last.Edit = &api.ActionEdit{By: "alice", At: decided, From: api.ArgsVersion{
		Args: json.RawMessage(`{"body":"## Review\n\n**2 findings**"}`), Preview: "## Review\n\n**2 findings**"}}
	snap.Actions = []api.PendingAction{first, last}
	snap.PendingAction = &snap.Actions[1]
	snap.Run.Status = api.RunCompleted
	h.runs.put("run-1", snap)
	page, _ := h.browser(map[string]string{"X-Forwarded-User": "alice"}).openRun("run-1")
	require.Contains(t, page, "Every version")
	require.Contains(t, page, "Sent back with feedback by bob")
	require.Contains(t, page, "Leave out the details.")
	require.Contains(t, page, "**6 findings**", "the first proposal")
	require.Contains(t, page, "Edited by alice before approving")
	require.Contains(t, page, "<del>- **2 findings**</del>", "the edit against the proposal it edited")
	require.Contains(t, page, "<ins>+ No findings worth a comment.</ins>")
}
