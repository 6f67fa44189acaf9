package workflows

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"

	"github.com/agentrun/agentrun/api"
)

func historyOf(t *testing.T, dir, name string) []*historypb.HistoryEvent {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", dir, name))
	require.NoError(t, err)
	defer f.Close()
	h, err := client.HistoryFromJSON(f, client.HistoryJSONOptions{})
	require.NoError(t, err)
	return h.Events
}

// inboxMemos are the inbox memos a history wrote, in order.
func inboxMemos(t *testing.T, events []*historypb.HistoryEvent) []api.InboxMemo {
	t.Helper()
	var memos []api.InboxMemo
	for _, ev := range events {
		fields := ev.GetWorkflowPropertiesModifiedEventAttributes().GetUpsertedMemo().GetFields()
		if p, ok := fields[api.MemoInbox]; ok {
			var memo api.InboxMemo
			require.NoError(t, converter.GetDefaultDataConverter().FromPayload(p, &memo))
			memos = append(memos, memo)
		}
	}
	return memos
}

// A run writes, once per wait, what the inbox shows: the action that waits,
// with its preview and input hash but not its input, and the run it
// belongs to.
func TestARunWritesItsWaitingActionToItsMemoOncePerWait(t *testing.T) {
	events := historyOf(t, "replay", "happy.json")
	memos := inboxMemos(t, events)
	require.Len(t, memos, 1)
	memo := memos[0]
	require.Len(t, memo.Actions, 1)
	a := memo.Actions[0]
	require.Equal(t, api.ActionWaiting, a.State)
	require.NotEmpty(t, a.Preview)
	require.NotEmpty(t, a.ArgsHash)
	require.Contains(t, []string{"", "null"}, string(a.SafeInput), "the memo is copied into visibility: it carries the input's hash, not the input")
	require.Equal(t, api.RunWaitingForUser, memo.Run.Status)
	require.Equal(t, api.LabelWaitingApproval, memo.Label)
	require.NotEmpty(t, memo.Run.Repo)

	var changeIDs []string
	for _, ev := range events {
		if m := ev.GetMarkerRecordedEventAttributes(); m.GetMarkerName() == "Version" {
			var id string
			require.NoError(t, converter.GetDefaultDataConverter().FromPayloads(m.GetDetails()["change-id"], &id))
			changeIDs = append(changeIDs, id)
		}
	}
	require.Empty(t, changeIDs, "the workflow calls no GetVersion")

	// An action proposed while the run already waits is written too: the
	// memo then lists both, as the run query would. The second, approved
	// first, leaves the memo while the run still waits on the first: the
	// inbox never offers an action that is already decided.
	two := inboxMemos(t, historyOf(t, "replay", "two-approvals.json"))
	require.Len(t, two, 3)
	require.Len(t, two[0].Actions, 1)
	require.Len(t, two[1].Actions, 2)
	require.Equal(t, two[0].Actions[0].ID, two[1].Actions[0].ID)
	require.NotEqual(t, two[1].Actions[0].ID, two[1].Actions[1].ID)
	require.Equal(t, api.RunWaitingForUser, two[2].Run.Status)
	require.Len(t, two[2].Actions, 1)
	require.Equal(t, two[0].Actions[0].ID, two[2].Actions[0].ID)
	require.Equal(t, api.ActionWaiting, two[2].Actions[0].State)
}

// standingMemos are the standings a history wrote into its memo, in order.
func standingMemos(t *testing.T, events []*historypb.HistoryEvent) []api.Standing {
	t.Helper()
	var out []api.Standing
	for _, ev := range events {
		fields := ev.GetWorkflowPropertiesModifiedEventAttributes().GetUpsertedMemo().GetFields()
		if p, ok := fields[api.MemoStanding]; ok {
			var s api.Standing
			require.NoError(t, converter.GetDefaultDataConverter().FromPayload(p, &s))
			out = append(out, s)
		}
	}
	return out
}

// A run writes how it stands into its memo once, as it ends, in the words
// every view says, so that a listing reads it without a query per run.
func TestARunWritesItsStandingToItsMemoOnceAsItEnds(t *testing.T) {
	require.Equal(t, []api.Standing{{Key: "completed", Words: "Done"}}, standingMemos(t, historyOf(t, "replay", "happy.json")))
	require.Empty(t, standingMemos(t, historyOf(t, "replay", "happy.waiting.json")), "an open run has none")

	partial := standingMemos(t, historyOf(t, "replay", "recommend-coupons-down.json"))
	require.Len(t, partial, 1)
	require.Equal(t, api.StandingPartial, partial[0].Key)
	require.Equal(t, "Partial", partial[0].Words)
	require.Contains(t, partial[0].Detail, "get_coupons failed (coupons unavailable: the merchant service answered 503")

	rejected := standingMemos(t, historyOf(t, "replay", "reject.json"))
	require.Len(t, rejected, 1)
	require.Contains(t, rejected[0].Words, "Rejected by ")
}
