package approvalsrv

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/ghsandbox"
)

// pressOnRun1 is a press of waitingRun's act-1 button (decision) by sender,
// as GitHub delivers it from run-1's check run.
func pressOnRun1(t *testing.T, sender, identifier string) []byte {
	t.Helper()
	return buttonPress(t, ghsandbox.CheckRun{ID: 77, Name: "agentrun/pr-review", HeadSHA: pull1Head, ExternalID: "run-1", Status: "in_progress"}, sender, identifier)
}

func TestAnApproveButtonByAWriterSendsTheBoundDecisionOnce(t *testing.T) {
	h := waitingHarness(t, sandboxPermissions(t))
	press := pressOnRun1(t, "bob", api.CheckButtonID(api.DecisionApprove, "act-1", act1Hash))

	first, again := h.deliver("check_run", "d-7", press), h.deliver("check_run", "d-7", press)

	require.Equal(t, http.StatusAccepted, first.StatusCode, replyOf(t, first)["error"])
	require.Equal(t, http.StatusAccepted, again.StatusCode)
	sigs := h.runs.approvalSignals()
	require.Len(t, sigs, 1, "a redelivery sends nothing new")
	require.Equal(t, api.ApprovalSignal{
		ActionID: "act-1", ArgsHash: act1Hash, Decision: api.DecisionApprove, Approver: "bob",
		RequestID: "github-check-run:d-7", Channel: channelCheckRun,
	}, sigs[0])
}

func TestARejectButtonRecordsThatItCameFromTheCheckRun(t *testing.T) {
	h := waitingHarness(t, sandboxPermissions(t))
	resp := h.deliver("check_run", "d-8", pressOnRun1(t, "alice", api.CheckButtonID(api.DecisionReject, "act-1", act1Hash)))
	require.Equal(t, http.StatusAccepted, resp.StatusCode, replyOf(t, resp)["error"])
	sigs := h.runs.approvalSignals()
	require.Len(t, sigs, 1)
	require.Equal(t, api.DecisionReject, sigs[0].Decision)
	require.Equal(t, api.RejectedFromCheckRun, sigs[0].Reason)
}

// TestButtonPressesThatMustNotDecide: hostile or stale presses send nothing.
func TestButtonPressesThatMustNotDecide(t *testing.T) {
	approve := api.CheckButtonID(api.DecisionApprove, "act-1", act1Hash)
	otherCheck := ghsandbox.CheckRun{ID: 5, Name: "ci/build", HeadSHA: pull1Head, ExternalID: "run-1"}
	for name, tc := range map[string]struct {
		payload func(t *testing.T) []byte
		status  int
	}{
		"a reader":   {func(t *testing.T) []byte { return pressOnRun1(t, "mallory", approve) }, http.StatusForbidden},
		"a stranger": {func(t *testing.T) []byte { return pressOnRun1(t, "eve", approve) }, http.StatusForbidden},
		"arguments edited since": {func(t *testing.T) []byte {
			return pressOnRun1(t, "bob", api.CheckButtonID(api.DecisionApprove, "act-1", "other"))
		}, http.StatusConflict},
		"another action's button": {func(t *testing.T) []byte {
			return pressOnRun1(t, "bob", api.CheckButtonID(api.DecisionApprove, "act-2", act1Hash))
		}, http.StatusConflict},
		"an identifier not ours": {func(t *testing.T) []byte { return pressOnRun1(t, "bob", "approve") }, http.StatusBadRequest},
		"a made-up verb":         {func(t *testing.T) []byte { return pressOnRun1(t, "bob", "respond-0123456789ab") }, http.StatusBadRequest},
		"another app's check":    {func(t *testing.T) []byte { return buttonPress(t, otherCheck, "bob", approve) }, http.StatusNoContent},
		"a run that does not exist": {func(t *testing.T) []byte {
			return buttonPress(t, ghsandbox.CheckRun{Name: "agentrun/pr-review", ExternalID: "run-9"}, "bob", approve)
		}, http.StatusNotFound},
		"not JSON": {func(*testing.T) []byte { return []byte("{") }, http.StatusBadRequest},
	} {
		t.Run(name, func(t *testing.T) {
			h := waitingHarness(t, sandboxPermissions(t))
			resp := h.deliver("check_run", "d-"+name, tc.payload(t))
			require.Equal(t, tc.status, resp.StatusCode, readAll(t, resp))
			require.Empty(t, h.runs.approvalSignals())
		})
	}
}

// TestAButtonOnAnotherRepositorysCheckIsRefused: the run named by the
// check's external_id must be on the delivery's repository.
func TestAButtonOnAnotherRepositorysCheckIsRefused(t *testing.T) {
	h := waitingHarness(t, sandboxPermissions(t))
	snap := waitingRun()
	snap.Run.Repo = "acme/other"
	h.runs.put("run-1", snap)
	resp := h.deliver("check_run", "d-9", pressOnRun1(t, "bob", api.CheckButtonID(api.DecisionApprove, "act-1", act1Hash)))
	require.Equal(t, http.StatusNotFound, resp.StatusCode)
	require.Empty(t, h.runs.approvalSignals())
}

func TestCheckButtonIDsFitGitHubsLimitAndParseBack(t *testing.T) {
	for _, d := range []string{api.DecisionApprove, api.DecisionReject} {
		id := api.CheckButtonID(d, "act-0123456789abcdef", "sha256:deadbeef")
		require.LessOrEqual(t, len(id), ghsandbox.MaxCheckActionIdentifier, id)
		got, token, ok := api.ParseCheckButtonID(id)
		require.True(t, ok)
		require.Equal(t, d, got)
		require.Equal(t, api.CheckButtonToken("act-0123456789abcdef", "sha256:deadbeef"), token)
	}
	for _, bad := range []string{"", "approve", "approve-", "approve-XYZ456789abc", "approve-0123456789AB", "approve-0123456789abcd", "respond-0123456789ab"} {
		_, _, ok := api.ParseCheckButtonID(bad)
		require.False(t, ok, bad)
	}
}

// octokitPress is GitHub's own requested_action example, changed only
// where it must point at run-1's check run on acme/widgets and name who
// pressed which button.
func octokitPress(t *testing.T, sender, identifier string) []byte {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "octokit", "check_run.requested_action.json"))
	require.NoError(t, err)
	var ev map[string]any
	require.NoError(t, json.Unmarshal(raw, &ev))
	check := ev["check_run"].(map[string]any)
	check["name"], check["external_id"], check["head_sha"] = "agentrun/pr-review", "run-1", pull1Head
	ev["requested_action"] = map[string]any{"identifier": identifier}
	repo := ev["repository"].(map[string]any)
	repo["full_name"], repo["name"] = "acme/widgets", "widgets"
	repo["owner"].(map[string]any)["login"] = "acme"
	ev["sender"].(map[string]any)["login"] = sender
	out, err := json.Marshal(ev)
	require.NoError(t, err)
	return out
}

func TestGitHubsOwnRequestedActionExampleDecides(t *testing.T) {
	h := waitingHarness(t, sandboxPermissions(t))
	approve := api.CheckButtonID(api.DecisionApprove, "act-1", act1Hash)

	reader := h.deliver("check_run", "72d3162e-cc78-11e3-81ab-4c9367dc0958", octokitPress(t, "mallory", approve))
	require.Equal(t, http.StatusForbidden, reader.StatusCode, readAll(t, reader))
	require.Empty(t, h.runs.approvalSignals())

	resp := h.deliver("check_run", "72d3162e-cc78-11e3-81ab-4c9367dc0959", octokitPress(t, "bob", approve))
	require.Equal(t, http.StatusAccepted, resp.StatusCode, readAll(t, resp))
	require.Len(t, h.runs.approvalSignals(), 1)

	// The example's own button (another app's check) decides nothing.
	raw, err := os.ReadFile(filepath.Join("testdata", "octokit", "check_run.requested_action.json"))
	require.NoError(t, err)
	other := h.deliver("check_run", "72d3162e-cc78-11e3-81ab-4c9367dc0960", raw)
	require.Equal(t, http.StatusNoContent, other.StatusCode)
	require.Len(t, h.runs.approvalSignals(), 1)
}

// askedPermissions records each permission lookup, as owner/repo:login.
type askedPermissions struct {
	PermissionChecker
	mu    sync.Mutex
	asked []string
}

func (p *askedPermissions) Permission(ctx context.Context, owner, repo, login string) (string, error) {
	p.mu.Lock()
	p.asked = append(p.asked, owner+"/"+repo+":"+login)
	p.mu.Unlock()
	return p.PermissionChecker.Permission(ctx, owner, repo, login)
}

func (p *askedPermissions) lookups() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.asked)
}

// TestAButtonPressAsksGitHubOnceForItsSendersPermission: the lookup the
// open-run policy needs is started with the run query, and the policy
// takes its answer instead of asking again; the policy still decides, so
// a reader's press is refused on that one answer.
func TestAButtonPressAsksGitHubOnceForItsSendersPermission(t *testing.T) {
	approve := api.CheckButtonID(api.DecisionApprove, "act-1", act1Hash)
	for name, tc := range map[string]struct {
		sender, senderType string
		approvers          []string
		status             int
		asked              []string
	}{
		"a writer":                     {"bob", "User", nil, http.StatusAccepted, []string{"acme/widgets:bob"}},
		"a reader":                     {"mallory", "User", nil, http.StatusForbidden, []string{"acme/widgets:mallory"}},
		"a bot, refused before asking": {"ci", "Bot", nil, http.StatusForbidden, nil},
		// The run's list decides; the lookup started early is left unused.
		"a listed approver": {"alice", "User", []string{"alice"}, http.StatusAccepted, []string{"acme/widgets:alice"}},
	} {
		t.Run(name, func(t *testing.T) {
			perms := &askedPermissions{PermissionChecker: sandboxPermissions(t)}
			h := waitingHarness(t, perms, tc.approvers...)
			var event map[string]any
			require.NoError(t, json.Unmarshal(pressOnRun1(t, tc.sender, approve), &event))
			event["sender"].(map[string]any)["type"] = tc.senderType
			body, err := json.Marshal(event)
			require.NoError(t, err)

			resp := h.deliver("check_run", "d-"+name, body)

			require.Equal(t, tc.status, resp.StatusCode, readAll(t, resp))
			require.Equal(t, tc.asked, h.waitForLookups(t, perms, len(tc.asked)))
			if tc.status == http.StatusAccepted {
				require.Len(t, h.runs.approvalSignals(), 1)
			} else {
				require.Empty(t, h.runs.approvalSignals())
			}
		})
	}
}

// waitForLookups is perms' lookups once there are want of them: an early
// lookup the policy did not need may still be under way when the answer
// is written. The request's end cancels it, so it ends soon.
func (h *harness) waitForLookups(t *testing.T, perms *askedPermissions, want int) []string {
	t.Helper()
	require.Eventually(t, func() bool { return len(perms.lookups()) >= want }, 10*time.Second, time.Millisecond)
	return perms.lookups()
}

// TestAnEarlyPermissionLookupAnswersOnlyForItsRepositoryAndLogin: a run
// whose repository is spelled otherwise is asked about afresh.
func TestAnEarlyPermissionLookupAnswersOnlyForItsRepositoryAndLogin(t *testing.T) {
	l := &permissionLookup{repo: "acme/widgets", login: "bob"}
	require.True(t, l.answers("acme/widgets", "bob"))
	require.False(t, l.answers("Acme/Widgets", "bob"))
	require.False(t, l.answers("acme/widgets", "alice"))
	require.False(t, (*permissionLookup)(nil).answers("acme/widgets", "bob"))
}
