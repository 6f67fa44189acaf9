package approvalsrv

import (
	"cmp"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
)

func TestRunPageShowsLabelStatusPreviewApproversAndTimeline(t *testing.T) {
	h := waitingHarness(t, nil, "alice", "bob")

	page, form := h.browser(map[string]string{"X-Forwarded-User": "alice"}).openRun("run-1")

	require.Contains(t, page, "Waiting for approval to comment on acme/widgets#1")
	require.Contains(t, page, `id="run-status" class="badge badge-waiting_for_user">Waiting for approval`)
	require.Contains(t, page, "Looks good, but `fmt.Println` is left in cache.go.")
	require.Contains(t, page, "alice, bob")
	require.Contains(t, page, `datetime="2025-03-05T11:00:00Z" data-countdown`)
	require.Contains(t, page, "get_pull_request")
	require.Contains(t, page, "attempt 2 · 2.3s")
	require.Contains(t, page, "attempt 1: connection reset")
	require.Contains(t, page, ">Approve</button>")
	require.Contains(t, page, ">Reject</button>")
	require.Contains(t, page, "Signed in as <strong>alice</strong>")
	require.NotEmpty(t, form.Get("csrf"))
	require.NotEmpty(t, form.Get("requestId"))
}

func TestRunPageOfACompletedRunSaysDoneAndOffersOnlyAFollowUp(t *testing.T) {
	h := newHarness(t, testConfig(), nil)
	snap := waitingRun()
	snap.Run.Status = api.RunCompleted
	snap.PendingAction.State = api.ActionApproved
	snap.PendingAction.DecidedBy = "alice"
	h.runs.put("run-1", snap)

	page, _ := h.browser(map[string]string{"X-Forwarded-User": "alice"}).openRun("run-1")

	require.Contains(t, page, `badge-completed">Done`)
	require.Contains(t, page, "approved by alice")
	require.Equal(t, 1, strings.Count(page, "<form"), "no decision or cancel form")
	require.Contains(t, page, `<form class="follow-up" method="post" action="/runs/run-1/follow-up">`)
}

func TestRunPageEscapesThePreview(t *testing.T) {
	h := newHarness(t, testConfig(), nil)
	snap := waitingRun()
	snap.PendingAction.Preview = `<script>alert(1)</script>`
	h.runs.put("run-1", snap)

	page, _ := h.browser(map[string]string{"X-Forwarded-User": "alice"}).openRun("run-1")

	require.NotContains(t, page, "<script>alert(1)</script>")
	require.Contains(t, page, "&lt;script&gt;alert(1)&lt;/script&gt;")
}

func TestFormApproveTakesTheApproverFromTheIdentityHeader(t *testing.T) {
	h := waitingHarness(t, nil, "alice")
	b := h.browser(map[string]string{"X-Forwarded-User": "alice"})
	_, form := b.openRun("run-1")
	form.Set("decision", "approve")
	form.Set("approver", "mallory") // ignored outside dev mode

	resp := b.submit(decisionPagePath, form, nil)

	require.Equal(t, http.StatusAccepted, resp.StatusCode)
	signals := h.runs.approvalSignals()
	require.Len(t, signals, 1)
	require.Equal(t, "alice", signals[0].Approver)
	require.Equal(t, form.Get("requestId"), signals[0].RequestID)
}

const decisionPagePath = "/runs/run-1/actions/act-1/decision"

func TestFormWithoutScriptRedirectsBackWithANotice(t *testing.T) {
	h := waitingHarness(t, nil)
	b := h.browser(map[string]string{"X-Forwarded-User": "alice"})
	_, form := b.openRun("run-1")
	form.Set("decision", "approve")

	resp := b.do(http.MethodPost, decisionPagePath, form, nil)

	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	require.Equal(t, "/runs/run-1?result=202", resp.Header.Get("Location"))
	require.Contains(t, readAll(t, b.do(http.MethodGet, "/runs/run-1?result=202", nil, nil)), "Your decision was sent to the run.")
}

// formRefusal is a post of a page's form, edited, with extra headers, that
// the server must refuse with want (and an error containing wantErr, when
// set) and send nothing to the run for.
type formRefusal struct {
	edit    func(url.Values)
	extra   map[string]string
	want    int
	wantErr string
}

func (c formRefusal) requireRefused(t *testing.T, h *harness, b *browser, path string, form url.Values) {
	t.Helper()
	if c.edit != nil {
		c.edit(form)
	}

	resp := b.submit(path, form, c.extra)

	require.Equal(t, c.want, resp.StatusCode)
	if c.wantErr != "" {
		require.Contains(t, replyOf(t, resp)["error"], c.wantErr)
	}
	require.Empty(t, h.runs.approvalSignals())
}

func TestFormRefusals(t *testing.T) {
	cases := map[string]struct {
		// as is who the login proxy says is at the page; "" is alice.
		as string
		formRefusal
	}{
		"missing CSRF token": {formRefusal: formRefusal{
			edit: func(f url.Values) { f.Del("csrf") }, want: http.StatusForbidden, wantErr: "This page is out of date",
		}},
		"forged CSRF token": {formRefusal: formRefusal{
			edit: func(f url.Values) { f.Set("csrf", "forged") }, want: http.StatusForbidden, wantErr: "This page is out of date",
		}},
		"cross-site post": {formRefusal: formRefusal{
			extra: map[string]string{"Sec-Fetch-Site": "cross-site"}, want: http.StatusForbidden,
		}},
		"reject without reason": {formRefusal: formRefusal{
			edit: func(f url.Values) { f.Set("decision", "reject") }, want: http.StatusBadRequest, wantErr: "a rejection needs one",
		}},
		"identity not an approver": {as: "mallory", formRefusal: formRefusal{
			want: http.StatusForbidden, wantErr: "mallory is not an approver",
		}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			h := waitingHarness(t, nil, "alice")
			b := h.browser(map[string]string{"X-Forwarded-User": cmp.Or(c.as, "alice")})
			_, form := b.openRun("run-1")
			form.Set("decision", "approve")

			c.requireRefused(t, h, b, decisionPagePath, form)
		})
	}
}

func TestRunPageWithoutIdentityOutsideDevModeAnswers401AskingToSignIn(t *testing.T) {
	h := waitingHarness(t, nil)

	resp := h.browser(nil).do(http.MethodGet, "/runs/run-1", nil, nil)

	require.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	page := readAll(t, resp)
	require.Contains(t, page, "Sign in first")
	require.NotContains(t, page, "Looks good, but", "no preview for an anonymous reader")
}

func TestDevModeFormTakesATypedName(t *testing.T) {
	h := newHarness(t, Config{InsecureDev: true}, nil)
	h.runs.put("run-1", waitingRun())
	b := h.browser(nil)
	page, form := b.openRun("run-1")
	require.Contains(t, page, `name="approver"`)
	form.Set("decision", "approve")
	form.Set("approver", "dana")

	resp := b.submit(decisionPagePath, form, nil)

	require.Equal(t, http.StatusAccepted, resp.StatusCode)
	require.Equal(t, "dana", h.runs.approvalSignals()[0].Approver)
}

func TestInboxPageListsPendingApprovals(t *testing.T) {
	h := waitingHarness(t, nil)

	resp := h.get("/", nil)

	require.Equal(t, http.StatusOK, resp.StatusCode)
	page := readAll(t, resp)
	require.Contains(t, page, `href="/runs/run-1"`)
	require.Contains(t, page, "Create an issue comment on acme/widgets#1</a>", "an action recorded without words reads by its name")
	require.Contains(t, page, "Looks good, but")
}

func TestPanelIsTheLivePartOfTheRunPage(t *testing.T) {
	h := waitingHarness(t, nil)

	resp := h.get("/runs/run-1/panel", nil)

	require.Equal(t, http.StatusOK, resp.StatusCode)
	panel := readAll(t, resp)
	require.Contains(t, panel, `data-part="action" data-key="act-1/waiting/true/open"`)
	require.NotContains(t, panel, "<html")
}

func TestUnknownRunPageAnswers404(t *testing.T) {
	h := newHarness(t, testConfig(), nil)

	resp := h.get("/runs/run-9", nil)

	require.Equal(t, http.StatusNotFound, resp.StatusCode)
	require.Contains(t, readAll(t, resp), "unknown run")
}

// The embedded files themselves refer to nothing outside
// (pages.TestPagesUseOnlyEmbeddedAssets); here they are served with their
// types, under the CSP that keeps them the only ones.
func TestEmbeddedAssetsAreServedWithTheirTypes(t *testing.T) {
	h := newHarness(t, testConfig(), nil)
	for path, contentType := range map[string]string{
		"/static/app.css": "text/css", "/static/run.js": "text/javascript", "/static/countdown.js": "text/javascript",
	} {
		resp := h.get(path, nil)
		require.Equal(t, http.StatusOK, resp.StatusCode, path)
		require.Contains(t, resp.Header.Get("Content-Type"), contentType, path)
	}
	require.Contains(t, h.get("/", nil).Header.Get("Content-Security-Policy"), "default-src 'self'")
}

// A long run's snapshot carries only its newest steps; the page must say so
// rather than present them as the whole timeline.
func TestRunPageOfALongRunSaysItShowsOnlyTheNewestSteps(t *testing.T) {
	h := newHarness(t, testConfig(), nil)
	snap := waitingRun("alice")
	snap.StepsFrom, snap.StepCount = 250, 250+len(snap.Steps)
	h.runs.put("run-1", snap)

	page, _ := h.browser(map[string]string{"X-Forwarded-User": "alice"}).openRun("run-1")

	require.Contains(t, page, fmt.Sprintf("The newest %d of %d steps; <code>starter status run-1</code> lists every one.", len(snap.Steps), snap.StepCount))
}

func TestRunPageOfAShortRunDoesNotSayStepsAreMissing(t *testing.T) {
	h := waitingHarness(t, nil, "alice")

	page, _ := h.browser(map[string]string{"X-Forwarded-User": "alice"}).openRun("run-1")

	require.NotContains(t, page, "data-older-steps")
}

// The page says which rule applies to a review a pull request started: it
// posts without asking under a :post entry, and waits for a writer otherwise.
func TestRunPageSaysWhetherThisRepositorysReviewsPostWithoutAsking(t *testing.T) {
	h := newHarness(t, testConfig(), nil)
	snap := waitingRun()
	snap.Run.Head = strings.Repeat("a", 40)
	h.runs.put("run-1", snap)
	posts := waitingRun()
	posts.Run.Head = strings.Repeat("b", 40)
	posts.Run.Status, posts.PendingAction = api.RunCompleted, nil
	posts.Run.PostsWithoutAsking = "AGENTRUN_AUTO_REVIEW acme/widgets=pr-review:post"
	h.runs.put("run-2", posts)

	asks, _ := h.browser(map[string]string{"X-Forwarded-User": "alice"}).openRun("run-1")
	require.Contains(t, asks, "This repository's reviews wait for a writer's approval before they post.")
	unasked, _ := h.browser(map[string]string{"X-Forwarded-User": "alice"}).openRun("run-2")
	require.Contains(t, unasked, "This repository's reviews post without asking (AGENTRUN_AUTO_REVIEW acme/widgets=pr-review:post)")
}
