package api_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
)

func TestActionIDRuleKeepsQuotesAndOperatorsOutOfTheVisibilityQuery(t *testing.T) {
	for _, ok := range []string{"act-0123456789abcdef", "act-step-4", "act-A_b-9"} {
		require.True(t, api.ValidActionID(ok), ok)
	}
	for _, bad := range []string{
		"", "act-", "step-4", "act-1' OR '1'='1", `act-1"`, "act-a.b", "act-a:b", "act-a b", "act-ſ",
		"act-" + strings.Repeat("\x00", 8),
	} {
		require.False(t, api.ValidActionID(bad), bad)
	}
	require.True(t, api.ValidActionID("act-"+strings.Repeat("a", api.MaxActionIDLength-len(api.ActionIDPrefix))), "the longest ID")
	require.False(t, api.ValidActionID("act-"+strings.Repeat("a", api.MaxActionIDLength-len(api.ActionIDPrefix)+1)), "one past the longest")
}
