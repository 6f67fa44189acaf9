package approvalsrv

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
)

func TestThePagesEditBoxApprovesTheEditedArgumentsAndOnlyWithAnApprove(t *testing.T) {
	h := editableHarness(t, "alice")
	b := h.browser(map[string]string{"X-Forwarded-User": "alice"})
	page, form := b.openRun("run-1")
	require.Contains(t, page, `name="args"`, "an editable action has an edit box")
	require.Contains(t, page, `name="argsHash" value="`+act1Hash+`"`)
	require.Contains(t, page, "Send feedback")

	form.Set("args", `{"body":"Shorter, as alice wrote it."}`)
	form.Set("decision", "reject")
	form.Set("reason", "no")
	require.Equal(t, http.StatusAccepted, b.submit(decisionPagePath, form, nil).StatusCode)
	require.Empty(t, h.runs.approvalSignals()[0].Args, "a reject never carries the edit box")

	h = editableHarness(t, "alice")
	b = h.browser(map[string]string{"X-Forwarded-User": "alice"})
	_, form = b.openRun("run-1")
	form.Set("args", `{"body":"Shorter, as alice wrote it."}`)
	form.Set("argsHash", act1Hash) // the action form's, as the page shows it
	form.Set("decision", "approve")
	resp := b.submit(decisionPagePath, form, nil)
	require.Equal(t, http.StatusAccepted, resp.StatusCode, "%v %v", replyOf(t, resp), form)
	sig := h.runs.approvalSignals()[0]
	require.JSONEq(t, `{"body":"Shorter, as alice wrote it."}`, string(sig.Args))
	require.Equal(t, act1Hash, sig.ArgsHash, "bound to the version the page showed")
}

func TestThePageSendsFeedbackAndRefusesAnEditThatIsNotAnObject(t *testing.T) {
	h := editableHarness(t, "alice")
	b := h.browser(map[string]string{"X-Forwarded-User": "alice"})
	_, form := b.openRun("run-1")
	form.Set("decision", "respond")
	form.Set("reason", "shorter")
	require.Equal(t, http.StatusAccepted, b.submit(decisionPagePath, form, nil).StatusCode)
	require.Equal(t, api.DecisionRespond, h.runs.approvalSignals()[0].Decision)

	h = editableHarness(t, "alice")
	b = h.browser(map[string]string{"X-Forwarded-User": "alice"})
	_, form = b.openRun("run-1")
	form.Set("decision", "approve")
	form.Set("argsHash", act1Hash)
	form.Set("args", `["not", "an", "object"]`)
	require.Equal(t, http.StatusBadRequest, b.submit(decisionPagePath, form, nil).StatusCode)
	require.Empty(t, h.runs.approvalSignals())
}

func TestAnActionThatMayNotBeEditedHasNoEditBox(t *testing.T) {
	h := waitingHarness(t, nil, "alice")
	page, _ := h.browser(map[string]string{"X-Forwarded-User": "alice"}).openRun("run-1")
	require.NotContains(t, page, `name="args"`)
}
