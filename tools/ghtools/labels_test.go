package ghtools_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/tools"
	"github.com/agentrun/agentrun/tools/ghtools"
)

const labelsArgs = `{"labels":["needs-tests","bug"]}`

func TestAddLabelsAddsThemAndNamesTheEffectByTheSortedLabels(t *testing.T) {
	f := newFakeGitHub(t)
	f.setLabels("area/api")
	out, err := ghtools.NewAddLabels(f.access()).Execute(context.Background(), approvedCall(t, api.ToolAddLabels, labelsArgs, "run-1:5"))
	require.NoError(t, err)
	require.Equal(t, []string{"area/api", "needs-tests", "bug"}, f.labels())
	require.Equal(t, "bug,needs-tests", out.ExternalID)
	require.Equal(t, f.srv.URL+"/acme/widgets/pull/7", out.URL, "the web page of the pull request, on the API's host")
	require.False(t, out.AlreadyExisted)
	var content struct {
		Labels []string `json:"labels"`
		URL    string   `json:"url"`
	}
	require.NoError(t, json.Unmarshal(out.Content, &content))
	require.Equal(t, []string{"area/api", "needs-tests", "bug"}, content.Labels, "the model reads every label the pull request carries")
	require.Equal(t, out.URL, content.URL)
}

func TestAddLabelsAfterALostResponseFindsThemAndAddsNothing(t *testing.T) {
	testLostResponse(t, lostResponse{newAction: func(acc ghtools.Access) tools.Action { return ghtools.NewAddLabels(acc) }, tool: api.ToolAddLabels, args: labelsArgs, key: "run-1:5",
		write: opAddLabels, externalID: "bug,needs-tests",
		between: func(t *testing.T, f *fakeGitHub) {
			require.ElementsMatch(t, []string{"needs-tests", "bug"}, f.labels())
		}})
}

func TestAddLabelsReconcile(t *testing.T) {
	cases := []struct {
		name    string
		have    []string
		refuse  int
		outcome string
	}{
		{name: "none of them", have: []string{"area/api"}, outcome: api.ReconcileNotCreated},
		{name: "one of two", have: []string{"bug"}, outcome: api.ReconcileNotCreated},
		{name: "a longer name is not the label", have: []string{"bug-fix", "needs-tests-2"}, outcome: api.ReconcileNotCreated},
		{name: "all, among others", have: []string{"area/api", "needs-tests", "bug"}, outcome: api.ReconcileFound},
		{name: "all, in another case", have: []string{"Needs-Tests", "BUG"}, outcome: api.ReconcileFound},
		{name: "403", have: []string{"needs-tests", "bug"}, refuse: 403, outcome: api.ReconcileCannotTell},
		{name: "404", refuse: 404, outcome: api.ReconcileCannotTell},
		{name: "401", refuse: 401, outcome: api.ReconcileCannotTell},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeGitHub(t)
			f.setLabels(tc.have...)
			if tc.refuse != 0 {
				f.refuseWith(opGetIssue, tc.refuse)
			}
			rec, err := ghtools.NewAddLabels(f.access()).Reconcile(context.Background(), approvedCall(t, api.ToolAddLabels, labelsArgs, "run-1:5"))
			require.NoError(t, err)
			require.Equal(t, tc.outcome, rec.Outcome, rec.Reason)
			switch tc.outcome {
			case api.ReconcileFound:
				require.Equal(t, "bug,needs-tests", rec.Output.ExternalID)
				require.True(t, rec.Output.AlreadyExisted)
			case api.ReconcileCannotTell:
				require.Contains(t, rec.Reason, "refused by the test")
			}
			require.Zero(t, f.count(opAddLabels), "reconciling never adds")
		})
	}
}

func TestAddLabelsRefusals(t *testing.T) {
	f := newFakeGitHub(t)
	action := ghtools.NewAddLabels(f.access())
	for name, call := range map[string]tools.Call{
		"blank label":     {Args: json.RawMessage(`{"labels":["  "]}`), Target: pr, OperationKey: "run-1:5"},
		"not approved":    {Args: json.RawMessage(labelsArgs), Target: pr, OperationKey: "run-1:5", Approved: `Add labels to acme/widgets#7: "bug"`},
		"no pull request": {Args: json.RawMessage(labelsArgs), Target: api.Target{Owner: "acme", Repo: "widgets"}, OperationKey: "run-1:5"},
		"no key":          {Args: json.RawMessage(labelsArgs), Target: pr},
	} {
		t.Run(name, func(t *testing.T) { requireRefused(t, action, call) })
	}
	require.Zero(t, f.total(), "nothing reached GitHub")
}

func TestAddLabelsPreviewQuotesEveryLabel(t *testing.T) {
	action := ghtools.NewAddLabels(nil)
	preview := previewOf(t, action)
	require.Equal(t, `Add labels to acme/widgets#7: "needs-tests", "bug"`, preview(labelsArgs))
	require.NotEqual(t, preview(`{"labels":["a, b"]}`), preview(`{"labels":["a"," b"]}`))
	require.NotEqual(t, preview(`{"labels":["a\", \"b"]}`), preview(`{"labels":["a","b"]}`))
	requireTouches(t, action, "acme/widgets#7")
}

func TestAddLabelsSchemaRefusesBadCalls(t *testing.T) {
	for _, args := range []string{
		`{}`,
		`{"labels":[]}`,
		`{"labels":"bug"}`,
		`{"labels":[""]}`,
		`{"labels":[1]}`,
		`{"labels":["bug","bug"]}`,
		`{"labels":["a","b","c","d","e","f","g","h","i","j","k"]}`,
		`{"labels":["` + strings.Repeat("x", 51) + `"]}`,
		`{"labels":["bug"],"color":"red"}`,
	} {
		require.NotEmpty(t, refusal(t, api.ToolAddLabels, args), args)
	}
	require.Empty(t, refusal(t, api.ToolAddLabels, labelsArgs))
}

// The model is told which label is blank.
func TestAddLabelsNamesTheBlankLabel(t *testing.T) {
	_, err := ghtools.NewAddLabels(nil).Preview(tools.Call{Target: pr, Args: json.RawMessage(`{"labels":["bug","  "]}`)})
	require.ErrorContains(t, err, "label 2 is blank")
}
