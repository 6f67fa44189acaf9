package ghsandbox

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-github/v62/github"
	"github.com/stretchr/testify/require"
)

// A press on the pull request's page or the control endpoint sends the
// check_run requested_action delivery GitHub would, signed, by the person
// picked; a button the check run no longer shows sends nothing.
func TestPressingACheckRunsButtonDeliversRequestedActionAsThePersonPicked(t *testing.T) {
	sb, srv := startSandbox(t, DefaultFixture())
	hook, received := receiver(t, "s3cret")
	head := decode[PullRequest](t, call(t, "GET", srv.URL+"/repos/acme/widgets/pulls/1", "")).Head.SHA
	check := decode[CheckRunJSON](t, call(t, "POST", srv.URL+"/repos/acme/widgets/check-runs",
		`{"name":"agentrun/pr-review","head_sha":"`+head+`","external_id":"run-1","status":"in_progress",`+
			`"actions":[{"label":"Approve","description":"Post it","identifier":"approve-1"}]}`))
	path := srv.URL + "/_sandbox/check-runs/acme/widgets/" + strconv.FormatInt(check.ID, 10) + "/requested-action"

	noHook := decode[PressAnswer](t, call(t, "POST", path, `{"identifier":"approve-1","sender":"bob"}`))
	require.Contains(t, noHook.DeliveryError, "SANDBOX_WEBHOOK_URL")
	sb.SetWebhook(Webhook{URL: hook.URL, Secret: "s3cret"})

	a := decode[PressAnswer](t, call(t, "POST", path, `{"identifier":"approve-1","sender":"bob"}`))
	require.Equal(t, http.StatusAccepted, a.Delivered, a.DeliveryError)
	got := received()
	require.Len(t, got, 1)
	require.Equal(t, "check_run", got[0].header.Get("X-GitHub-Event"))
	require.Equal(t, a.DeliveryID, got[0].header.Get("X-GitHub-Delivery"))
	raw := call(t, "POST", path, `{"identifier":"approve-1","sender":"mallory"}`)
	require.Equal(t, http.StatusOK, raw.status)
	got = received()
	require.Len(t, got, 2)
	// go-github reads it as the approval server does.
	payload, err := json.Marshal(got[1].payload)
	require.NoError(t, err)
	parsed, err := github.ParseWebHook("check_run", payload)
	require.NoError(t, err)
	ev := parsed.(*github.CheckRunEvent)
	require.Equal(t, "requested_action", ev.GetAction())
	require.Equal(t, "approve-1", ev.GetRequestedAction().Identifier)
	require.Equal(t, "mallory", ev.GetSender().GetLogin())
	require.Equal(t, "User", ev.GetSender().GetType())
	require.Equal(t, "run-1", ev.GetCheckRun().GetExternalID())
	require.Equal(t, "agentrun/pr-review", ev.GetCheckRun().GetName())
	require.Equal(t, "acme/widgets", ev.GetRepo().GetFullName())

	gone := call(t, "POST", path, `{"identifier":"reject-1","sender":"bob"}`)
	require.Equal(t, http.StatusBadRequest, gone.status, "a button the check run does not show")
	bad := call(t, "POST", path, `{"identifier":"approve-1","sender":"not a login"}`)
	require.Equal(t, http.StatusBadRequest, bad.status)
	require.Len(t, received(), 2, "a refused press sends nothing")

	// The page's form: back to the page, which says who pressed what and
	// what the webhook answered, and keeps the person picked.
	client := &http.Client{}
	resp, err := client.PostForm(path, url.Values{"identifier": {"approve-1"}, "sender": {"bob"}, "back": {"/acme/widgets/pull/1"}})
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, "/acme/widgets/pull/1", resp.Request.URL.Path)
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	page := string(body)
	require.Contains(t, page, "bob pressed <b>Approve</b>; the webhook answered 202")
	require.Contains(t, page, `<option value="bob" selected>bob (write)</option>`)
	require.Contains(t, page, `<option value="mallory">mallory (read)</option>`)
	require.Len(t, received(), 3)

	// An open redirect is not one: back must be a path of the sandbox.
	for _, back := range []string{"//evil.example/x", "/\\evil.example/x", "/\tevil.example", "https://evil.example/"} {
		resp2, err := client.PostForm(path, url.Values{"identifier": {"approve-1"}, "sender": {"bob"}, "back": {back}})
		require.NoError(t, err)
		resp2.Body.Close()
		require.True(t, strings.HasPrefix(resp2.Request.URL.String(), srv.URL+"/acme/widgets"), "%q led to %s", back, resp2.Request.URL.String())
	}
}
