package workflows

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/ghsandbox"
)

const newerHead = "1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e"

// olderReview puts on the sandbox's pull request the review an older run
// posted: the bot's comment with that run's operation marker.
func olderReview(t *testing.T, sb *ghsandbox.Server, run string) ghsandbox.Comment {
	t.Helper()
	c, err := sb.PostAs(ghsandbox.CommentAs{Owner: "acme", Repo: "widgets", Number: 1, User: sb.BotLogin(),
		Body: "## Review of acme/widgets#1: Add widget cache\n\nLooks fine.\n\n" + api.OperationMarker(run+":3")})
	require.NoError(t, err)
	return c
}

func supersedingInput(run string, comment int64) api.RunInput {
	in := demoInput()
	in.Head = newerHead
	in.Supersedes = &api.SupersededReview{Run: run, CommentID: comment}
	return in
}

func (h *harness) comment(id int64) ghsandbox.Comment {
	h.t.Helper()
	for _, c := range h.sandbox.Comments("acme", "widgets", 1) {
		if c.ID == id {
			return c
		}
	}
	h.t.Fatalf("comment %d is gone", id)
	return ghsandbox.Comment{}
}

func (h *harness) supersedeEditEvents() []api.Event {
	var out []api.Event
	for _, e := range h.events() {
		if e.Type == api.EventSupersedeEdit {
			out = append(out, e)
		}
	}
	return out
}

// The review of a new head edits the older review's summary line once,
// before it reviews; its events and snapshot say which run took over.
func TestTheNewReviewMarksTheOlderPostedReviewSuperseded(t *testing.T) {
	h := newHarness(t)
	old := olderReview(t, h.sandbox, "review-old")
	h.approveAsAlice()
	h.run(supersedingInput("review-old", old.ID))
	require.NoError(t, h.env.GetWorkflowError())

	c := h.comment(old.ID)
	require.Equal(t, 1, c.Edits)
	first, rest, _ := strings.Cut(c.Body, "\n")
	require.Equal(t, "## ~~Review of acme/widgets#1: Add widget cache~~ (superseded by "+newerHead+"; run "+testRunID+" took over)", first)
	require.Equal(t, "\nLooks fine.\n\n"+api.OperationMarker("review-old:3"), rest, "only the summary line changes")
	require.Equal(t, 2, h.markedComments(), "the older review and the new one: the edit made no comment")
	require.Equal(t, 1, h.requestsFor(ghsandbox.OpEditComment))

	evs := h.supersedeEditEvents()
	require.Len(t, evs, 2)
	require.Equal(t, api.SupersedeEditSending, evs[0].Status)
	require.Contains(t, evs[0].Detail, "operation key "+api.SupersedeEditKey(testRunID, old.ID))
	require.Equal(t, api.SupersedeEditEdited, evs[1].Status)
	require.Contains(t, evs[1].Detail, "run "+testRunID+" took over")
	require.Equal(t, api.SupersedeEditEdited, h.snapshot().Outcome.SupersededReviews[0].State)
}

// A lost answer to the edit: the retry reads the comment, finds the final
// body and sends nothing; one comment, edited once.
func TestALostEditAnswerLeavesOneCommentEditedOnce(t *testing.T) {
	h := newHarness(t)
	old := olderReview(t, h.sandbox, "review-old")
	require.NoError(t, h.sandbox.AddFault(ghsandbox.Fault{Op: ghsandbox.OpEditComment, Mode: ghsandbox.ModeDropResponse}))
	h.approveAsAlice()
	h.run(supersedingInput("review-old", old.ID))
	require.NoError(t, h.env.GetWorkflowError())

	require.Equal(t, 1, h.comment(old.ID).Edits)
	require.Equal(t, 1, h.requestsFor(ghsandbox.OpEditComment), "the retry found the edit made")
	require.Equal(t, 2, h.requestsFor(ghsandbox.OpGetComment))
	evs := h.supersedeEditEvents()
	require.Equal(t, api.SupersedeEditFound, evs[len(evs)-1].Status)
}

// Someone else's comment, or the bot's without the older run's marker, is
// never edited; the run reviews all the same.
func TestOnlyTheOlderRunsOwnReviewIsEdited(t *testing.T) {
	for name, user := range map[string]string{"another author": "mallory", "no marker of the run": ""} {
		t.Run(name, func(t *testing.T) {
			h := newHarness(t)
			body := "## Review\n\n" + api.OperationMarker("review-old:3")
			if user == "" {
				user, body = h.sandbox.BotLogin(), "## Review\n\n"+api.OperationMarker("review-other:3")
			}
			c, err := h.sandbox.PostAs(ghsandbox.CommentAs{Owner: "acme", Repo: "widgets", Number: 1, User: user, Body: body})
			require.NoError(t, err)
			h.approveAsAlice()
			h.run(supersedingInput("review-old", c.ID))
			require.NoError(t, h.env.GetWorkflowError())
			require.Equal(t, api.RunCompleted, h.snapshot().Run.Status)
			require.Equal(t, 0, h.comment(c.ID).Edits)
			require.Equal(t, 0, h.requestsFor(ghsandbox.OpEditComment))
			evs := h.supersedeEditEvents()
			require.Equal(t, api.SupersedeEditFailed, evs[len(evs)-1].Status)
			require.Contains(t, evs[len(evs)-1].Detail, "refused")
		})
	}
}
