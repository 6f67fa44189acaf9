package activities_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	"google.golang.org/protobuf/proto"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/ghsandbox"
	"github.com/agentrun/agentrun/internal/testkit"
)

// A worker in app mode reviews a pull request with installation tokens:
// the run's input records the installation, the token it first minted
// expires while the run waits for approval, and the approved comment is
// posted once, by the app's bot, with a token minted then. No token ever
// enters the run's history.
func TestInstallationTokenThatExpiresMidRunIsRefreshedAndTheRunCompletesOnADevServer(t *testing.T) {
	testkit.NeedsDevServer(t)
	s := testkit.StartStack(t, testkit.StackOptions{})
	sb := ghsandbox.New(ghsandbox.DefaultFixture())
	const queue = "app-mode"
	testkit.StartSandboxAppWorker(t, s.Client(), queue, sb, 0)

	in := api.RunInput{Repo: "acme/widgets", PullNumber: 1, UserID: "carol", InstallationID: sb.InstallationID("acme")}
	run, err := s.Client().ExecuteWorkflow(context.Background(),
		client.StartWorkflowOptions{ID: fmt.Sprintf("app-mode-%d", time.Now().UnixNano()), TaskQueue: queue}, api.WorkflowName, in)
	require.NoError(t, err)
	pending := s.WaitForApproval(t, run.GetID())
	require.Equal(t, 1, sb.ExpireInstallationTokens(), "the reads so far used one token")

	s.Approve(t, run.GetID(), pending.ID)
	res := s.WaitForResult(t, run)

	require.Equal(t, api.RunCompleted, res.Status)
	comments := sb.Comments("acme", "widgets", 1)
	require.Len(t, comments, 1)
	require.Equal(t, testkit.SandboxAppSlug+"[bot]", comments[0].User)
	minted, refused, lookups := 0, 0, 0
	for _, r := range sb.Requests() {
		switch {
		case r.Op == ghsandbox.OpCreateInstallationToken:
			minted++
		case r.Op == ghsandbox.OpGetRepoInstallation:
			lookups++
		case r.Status == http.StatusUnauthorized:
			refused++
		}
	}
	require.Equal(t, 2, minted, "one token before the wait, one after it expired")
	require.Equal(t, 1, refused, "the first request after expiry was refused, and went again")
	require.Equal(t, 1, lookups, "the tools use the installation of the run's input; only the approver's permission check, "+
		"whose input names none, looks it up, once: a run's claim never stands in for GitHub's answer for other runs")

	iter := s.Client().GetWorkflowHistory(context.Background(), run.GetID(), "", false, 0)
	for iter.HasNext() {
		ev, err := iter.Next()
		require.NoError(t, err)
		raw, err := proto.Marshal(ev)
		require.NoError(t, err)
		require.False(t, bytes.Contains(raw, []byte("ghs_")), "event %d holds an installation token", ev.GetEventId())
	}
}
