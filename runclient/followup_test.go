package runclient

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
)

func TestAConversationIDThatCouldBreakItsQueryIsRefusedBeforeAnyCall(t *testing.T) {
	c := New(nil, Options{}) // no Temporal: a query would panic
	for _, id := range []string{"", "x' OR WorkflowType != 'y", "run 1", string(make([]byte, 129))} {
		_, err := c.Conversation(context.Background(), id)
		require.ErrorIs(t, err, ErrBadFilter, "%q", id)
	}
}

func TestAFollowUpsRequestHashNamesItsEarlierRunAndAPlainStartsStaysAsItWas(t *testing.T) {
	in := api.RunInput{Repo: "acme/widgets", PullNumber: 1, Goal: "again", UserID: "carol"}
	plain := RequestHash(in)
	in.FollowUp = "review-acme-widgets-1-aaaaaaaaaaaa"
	first := RequestHash(in)
	in.FollowUp = "review-acme-widgets-1-bbbbbbbbbbbb"

	require.NotEqual(t, plain, first)
	require.NotEqual(t, first, RequestHash(in), "one key reused for a follow-up of another run is a conflict")
	// The hash of the canonical JSON the code of before follow-ups wrote for
	// the plain request.
	require.Equal(t, "sha256:de9490c34ad7247cc2828611afe70f430965ba5ac7837302a0b8c305a93664c3", plain,
		"a start that follows up on nothing keeps its hash")
}

func TestFollowUpRunIDsAreOnePerEarlierRunUserAndKey(t *testing.T) {
	earlier := api.Run{ID: "review-acme-widgets-1-aaaaaaaaaaaa", Repo: "acme/widgets", PullNumber: 1}
	id := FollowUpRunID(earlier, "carol", "k1")
	require.Regexp(t, `^review-acme-widgets-1-[0-9a-f]{12}$`, id)
	require.Equal(t, id, FollowUpRunID(earlier, "carol", "k1"))
	require.NotEqual(t, id, FollowUpRunID(earlier, "carol", "k2"))
	require.NotEqual(t, id, FollowUpRunID(earlier, "bob", "k1"))
	other := earlier
	other.ID = "review-acme-widgets-1-bbbbbbbbbbbb"
	require.NotEqual(t, id, FollowUpRunID(other, "carol", "k1"))
}
