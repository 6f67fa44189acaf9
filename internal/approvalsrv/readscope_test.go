package approvalsrv

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/runclient"
)

// A run of acme/widgets requested by carol and approved by dave; in the
// GitHub sandbox mallory may read acme/widgets and eve is nobody there.
func scopedHarness(t *testing.T, perms PermissionChecker, now func() time.Time) *harness {
	t.Helper()
	runs := newFakeRuns()
	snap := waitingRun("dave")
	snap.Run.UserID = "carol"
	snap.Actions[0].RequestedBy = "carol" // as the workflow sets it
	runs.put("run-1", snap)
	runs.appendEvents("run-1", finished(1)) // a stream ends at once
	h := serve(t, testConfig(), Options{Runs: runs, Permissions: perms, Now: now, EventPollInterval: 10 * time.Millisecond})
	h.runs = runs
	return h
}

// asSandboxReader views pages as mallory, who may read acme/widgets in the
// GitHub sandbox.
var asSandboxReader = map[string]string{"X-Forwarded-User": "mallory"}

// pageAs is a GET of path as the login proxy's user login.
func (h *harness) pageAs(login, path string) (int, string) {
	h.t.Helper()
	resp := h.do(http.MethodGet, path, nil, map[string]string{"X-Forwarded-User": login})
	return resp.StatusCode, readAll(h.t, resp)
}

// inboxListsRun1 reports whether login's inbox page links to run-1.
func inboxListsRun1(t *testing.T, h *harness, login string) bool {
	t.Helper()
	code, body := h.pageAs(login, "/")
	require.Equal(t, http.StatusOK, code)
	return strings.Contains(body, `href="/runs/run-1"`)
}

// A person GitHub does not let read the repository, who neither requested
// nor may approve the run, sees nothing of it: its page, panel, stream and
// forms answer exactly as a run that does not exist, and neither the inbox
// nor the history lists it. A reader of the repository sees all of it.
func TestRunIsShownOnlyToWhoMayReadItsRepository(t *testing.T) {
	perms := &permissionCounter{PermissionChecker: sandboxPermissions(t)}
	h := scopedHarness(t, perms, nil)

	for _, path := range []string{"/runs/run-1", "/runs/run-1/panel", "/runs/run-1/events"} {
		code, body := h.pageAs("mallory", path)
		require.Equal(t, http.StatusOK, code, "a reader: %s", path)
		require.NotEmpty(t, body)

		hiddenCode, hiddenBody := h.pageAs("eve", path)
		unknownCode, unknownBody := h.pageAs("eve", strings.Replace(path, "run-1", "run-404", 1))
		require.Equal(t, http.StatusNotFound, hiddenCode, "not a reader: %s", path)
		require.Equal(t, unknownCode, hiddenCode, path)
		require.Equal(t, strings.ReplaceAll(unknownBody, "run-404", "run-1"), hiddenBody, "%s answers as an unknown run", path)
		require.NotContains(t, hiddenBody, "Looks good, but", path)
	}
	require.True(t, inboxListsRun1(t, h, "mallory"))
	require.False(t, inboxListsRun1(t, h, "eve"), "the inbox lists only runs its person may read")
	_, history := h.pageAs("mallory", "/runs")
	require.Contains(t, history, "/runs/run-1")
	_, history = h.pageAs("eve", "/runs")
	require.NotContains(t, history, "run-1", "the history lists only runs its person may read")

	eve := h.browser(map[string]string{"X-Forwarded-User": "eve"})
	form := url.Values{"decision": {"approve"}, "requestId": {"r-1"}, "csrf": {"x"}}
	hidden := eve.do(http.MethodPost, decisionPagePath, form, nil)
	unknown := eve.do(http.MethodPost, strings.Replace(decisionPagePath, "run-1", "run-404", 1), form, nil)
	require.Equal(t, http.StatusSeeOther, hidden.StatusCode)
	require.Equal(t, "/runs/run-1?result=404", hidden.Header.Get("Location"))
	require.Equal(t, strings.Replace(unknown.Header.Get("Location"), "run-404", "run-1", 1), hidden.Header.Get("Location"))
	require.Equal(t, http.StatusNotFound, eve.submit(decisionPagePath, form, nil).StatusCode)
	require.Empty(t, h.runs.approvalSignals())
	require.Empty(t, h.runs.refusalSignals(), "a hidden run records nothing of its visitor")

	// Signed clients are operators: they read every run.
	require.Equal(t, http.StatusOK, h.get("/v1/runs/run-1", nil).StatusCode)
	var approvals struct {
		Approvals []runclient.PendingApproval `json:"approvals"`
	}
	require.NoError(t, json.NewDecoder(h.get("/v1/approvals", nil).Body).Decode(&approvals))
	require.Len(t, approvals.Approvals, 1)
}

// The requester and the approvers see their run whatever GitHub says, and
// without asking it.
func TestRequesterAndApproversSeeTheirRunWithoutAPermissionLookup(t *testing.T) {
	perms := &permissionCounter{PermissionChecker: sandboxPermissions(t)}
	h := scopedHarness(t, perms, nil)

	for _, login := range []string{"carol", "Dave"} {
		code, _ := h.pageAs(login, "/runs/run-1")
		require.Equal(t, http.StatusOK, code, login)
		require.True(t, inboxListsRun1(t, h, login), login)
	}
	require.Zero(t, perms.count())
}

// GitHub is asked once per person and repository for a minute, then again:
// a removed collaborator soon sees nothing, and an inbox does not ask per row.
func TestReadPermissionIsAskedOncePerMinute(t *testing.T) {
	clock := &testClock{at: testNow}
	perms := &permissionCounter{PermissionChecker: sandboxPermissions(t)}
	h := scopedHarness(t, perms, clock.now)

	for _, path := range []string{"/runs/run-1", "/runs/run-1/panel", "/runs/run-1/events", "/", "/runs"} {
		code, _ := h.pageAs("mallory", path)
		require.Equal(t, http.StatusOK, code, path)
	}
	require.Equal(t, 1, perms.count(), "one lookup served five pages")
	code, _ := h.pageAs("eve", "/runs/run-1")
	require.Equal(t, http.StatusNotFound, code)
	require.Equal(t, 2, perms.count(), "another person is another lookup")

	clock.advance(readPermissionFreshFor)
	code, _ = h.pageAs("mallory", "/runs/run-1")
	require.Equal(t, http.StatusOK, code)
	require.Equal(t, 3, perms.count(), "a minute later GitHub is asked again")
}

// Without a GitHub client only the requester and the approvers see a run.
func TestWithoutPermissionsOnlyTheRequesterAndApproversSeeARun(t *testing.T) {
	h := scopedHarness(t, nil, nil)

	carol, _ := h.pageAs("carol", "/runs/run-1")
	mallory, _ := h.pageAs("mallory", "/runs/run-1")

	require.Equal(t, http.StatusOK, carol)
	require.Equal(t, http.StatusNotFound, mallory)
}

type testClock struct {
	mu sync.Mutex
	at time.Time
}

func (c *testClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.at
}

func (c *testClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.at = c.at.Add(d)
}

// The remembered answers are bounded: a stream of new logins (anyone the
// proxy lets sign in) does not grow the server's memory without end.
func TestRememberedReadPermissionsAreBounded(t *testing.T) {
	clock := &testClock{at: testNow}
	cache := newPermissionCache(everyoneReads{}, clock.now)

	for i := 0; i < readPermissionEntries+100; i++ {
		_, err := cache.permission(t.Context(), "acme", "widgets", fmt.Sprintf("user-%d", i))
		require.NoError(t, err)
	}
	require.LessOrEqual(t, len(cache.entries), readPermissionEntries)

	clock.advance(readPermissionFreshFor)
	_, err := cache.permission(t.Context(), "acme", "widgets", "late")
	require.NoError(t, err)
	require.Len(t, cache.entries, 1, "stale answers go first")
}

// A hold on a repository (or one of its pull requests) shows on the inbox
// only to whoever may read that repository, as the runs there do: its
// reason may name what is private. A hold on an agent shows to everyone
// signed in.
func TestTheInboxShowsAHoldOnARepositoryOnlyToItsReaders(t *testing.T) {
	h := scopedHarness(t, sandboxPermissions(t), nil)
	for i, sel := range []api.HoldSelector{{Target: "Acme/Widgets#1"}, {Agent: api.DefaultAgent}} {
		resp := h.signedPost("/v1/holds", holdBody(t, holdRequest{Selector: sel, By: "ops-oncall", Reason: fmt.Sprintf("reason-%d", i), RequestID: fmt.Sprint("h", i)}), testNow)
		require.Equal(t, http.StatusOK, resp.StatusCode)
	}

	_, reader := h.pageAs("mallory", "/")
	require.Contains(t, reader, "reason-0", "a reader of acme/widgets sees its hold")
	require.Contains(t, reader, "reason-1")
	_, stranger := h.pageAs("eve", "/")
	require.NotContains(t, stranger, "reason-0", "nobody of acme/widgets does not")
	require.NotContains(t, stranger, "acme/widgets")
	require.Contains(t, stranger, "reason-1", "a hold on an agent shows to everyone signed in")
}
