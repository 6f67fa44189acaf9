package offline

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
)

func commentBodyOf(t *testing.T, call api.ToolCall) string {
	t.Helper()
	var args struct {
		Body string `json:"body"`
	}
	require.NoError(t, json.Unmarshal(call.Arguments, &args))
	return args.Body
}

func TestFeedbackAskingForAShorterReviewProposesItWithoutTheDetails(t *testing.T) {
	d := newDialogue(t, "Review pull request acme/widgets#7.")
	call, body := d.fetchAndPropose(loadFixture(t, "findings"))
	require.Contains(t, body, "- `web/app.js` line 41")

	d.answer(call, api.FeedbackResult("alice", "Please make it shorter."))
	again := d.next()
	require.Empty(t, again.Final)
	require.Len(t, again.ToolCalls, 1)
	require.NotEqual(t, call.ID, again.ToolCalls[0].ID, "a new proposal is a new call")
	revised := commentBodyOf(t, again.ToolCalls[0])
	require.Contains(t, revised, "**12 findings** (details left out, as the reviewer asked)")
	require.NotContains(t, revised, "- `web/app.js` line 41")

	d.answer(again.ToolCalls[0], `{"commentId":77}`)
	require.Equal(t, "Posted the review of acme/widgets#7 (12 findings) as comment 77.", d.next().Final)
}

func TestFeedbackAskingToSkipAFileDropsItsFindingsAndKeepsEarlierFeedback(t *testing.T) {
	d := newDialogue(t, "Review pull request acme/widgets#7.")
	call, body := d.fetchAndPropose(loadFixture(t, "findings"))
	require.Contains(t, body, "`web/app.js`")

	d.answer(call, api.FeedbackResult("alice", "skip file `web/app.js`, it is generated"))
	second := d.next()
	require.Len(t, second.ToolCalls, 1)
	revised := commentBodyOf(t, second.ToolCalls[0])
	require.NotContains(t, revised, "`web/app.js`")
	require.Contains(t, revised, "## Review of acme/widgets#7")

	d.answer(second.ToolCalls[0], api.FeedbackResult("alice", "and shorter"))
	third := d.next()
	require.Len(t, third.ToolCalls, 1)
	last := commentBodyOf(t, third.ToolCalls[0])
	require.NotContains(t, last, "`web/app.js`", "earlier feedback still holds")
	require.Contains(t, last, "(details left out, as the reviewer asked)")
}

func TestARejectionIsNotFeedbackAndEndsTheReview(t *testing.T) {
	d := newDialogue(t, "Review pull request acme/widgets#7.")
	call, _ := d.fetchAndPropose(loadFixture(t, "findings"))
	d.answer(call, "rejected by alice: make it shorter")
	last := d.next()
	require.Empty(t, last.ToolCalls, "a reject, whatever its reason says, is no request to propose again")
	require.Contains(t, last.Final, "was not posted")
}

func TestAnEditedCommentsFinalAnswerSaysWhoEditedIt(t *testing.T) {
	d := newDialogue(t, "Review pull request acme/widgets#8.")
	call, _ := d.fetchAndPropose(loadFixture(t, "clean"))
	d.answer(call, api.EditedResult(`{"commentId":99}`, "alice"))
	require.Equal(t, "Posted the review of acme/widgets#8 as comment 99. alice edited it before it was posted.", d.next().Final,
		"no findings count: the editor may have changed them")
}
