package workflows_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/ghsandbox"
)

// followUpScenarios record a follow-up of the happy scenario's run, which
// the recording has finished before: the load of the earlier run, its
// conversation as the opening, and one new approved comment.
func followUpScenarios() []recordScenario {
	const goal = "Recorded follow-up: also say whether the cache is tested."
	return []recordScenario{{
		name: "followup",
		input: func(in *api.RunInput) {
			in.FollowUp, in.Goal = "record-happy", goal
		},
		decide: signal(api.DecisionApprove),
		check: func(t *testing.T, _ client.Client, snap api.RunSnapshot, sandbox *ghsandbox.Server) {
			require.Equal(t, "record-happy", snap.Run.FollowUp)
			require.Equal(t, "record-happy", snap.Run.ConversationID)
			n := 0
			for _, c := range sandbox.Comments("acme", "widgets", 1) {
				if strings.Contains(c.Body, goal) && strings.Contains(c.Body, "<!-- agent-operation:record-followup:") {
					n++
				}
			}
			require.Equal(t, 1, n, "one new comment, the follow-up's own")
		},
	}}
}
