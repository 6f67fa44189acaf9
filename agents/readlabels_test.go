package agents_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/agents"
	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/tools/merchanttool"
)

// A run's label while a read runs comes from the read's own words: the
// GitHub reads keep their stable labels, the merchant reads say what they
// do, and no built-in read falls back to its name.
func TestEveryBuiltinReadIsLabelledInItsOwnWords(t *testing.T) {
	ext, err := agents.Recommender("http://127.0.0.1:9090", nil)
	require.NoError(t, err)
	reg, err := agents.BuiltinWith(nil, ext)
	require.NoError(t, err)
	want := map[string]string{
		api.ToolGetPullRequest:          api.LabelReadingPR,
		api.ToolListPullRequestFiles:    api.LabelReadingFiles,
		merchanttool.SearchMerchants:    "Searching merchants",
		merchanttool.GetMerchantDetails: "Checking details",
		merchanttool.GetCoupons:         "Checking coupons",
	}
	for name, label := range want {
		tool, ok := reg.Tool(name)
		require.True(t, ok, name)
		require.Equal(t, label, api.ToolLabel(tool.Spec()), name)
	}
}

func TestAReadWithoutWordsIsLabelledByItsName(t *testing.T) {
	require.Equal(t, "Running lookup", api.ToolLabel(api.ToolSpec{Name: "lookup"}))
}
