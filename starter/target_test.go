package main

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/runclient"
)

func parseStart(t *testing.T, args ...string) (runclient.StartRequest, error) {
	t.Helper()
	cmd := &startCommand{env: newEnv(func(k string) string { return map[string]string{"USER": "carol"}[k] }, nil, nil)}
	return cmd.parse(args)
}

func TestStartTakesATargetOfAnyKindAsPairsOrJSONAndNamesTheRunByAgentAndTarget(t *testing.T) {
	pairs, err := parseStart(t, "--agent", "tickets", "--target", "kind=support_queue", "--target", "queue=support", "--approver", "alice")
	require.NoError(t, err)
	asJSON, err := parseStart(t, "--agent", "tickets", "--target", `{"kind":"support_queue","fields":{"queue":"support"}}`, "--approver", "alice")
	require.NoError(t, err)

	require.Equal(t, &api.Target{Kind: "support_queue", Fields: map[string]string{"queue": "support"}}, pairs.Input.Target)
	require.Empty(t, pairs.Input.Repo)
	require.Equal(t, pairs.RunID, asJSON.RunID, "two spellings of one request are one run")
	require.Regexp(t, `^tickets-support-[0-9a-f]{12}$`, pairs.RunID)
	require.Equal(t, runclient.RequestHash(pairs.Input), pairs.RequestHash)
}

func TestStartsPullRequestShorthandAndItsTargetSpellingAreOneRun(t *testing.T) {
	short, err := parseStart(t, "--repo", "acme/widgets", "--pr", "7")
	require.NoError(t, err)
	long, err := parseStart(t, "--target", "repo=acme/widgets", "--target", "pull=7")
	require.NoError(t, err)
	require.Equal(t, short, long)
	require.Nil(t, short.Input.Target, "a pull request keeps its wire form")
	require.Regexp(t, `^review-acme-widgets-7-[0-9a-f]{12}$`, short.RunID)
}

func TestStartRefusesABadTargetSayingWhy(t *testing.T) {
	cases := map[string]struct {
		args []string
		want string
	}{
		"no target":            {nil, "name the run's target"},
		"both spellings":       {[]string{"--repo", "acme/widgets", "--pr", "1", "--target", "pull=1"}, "give one or the other"},
		"not a pair":           {[]string{"--target", "support"}, "want NAME=VALUE"},
		"kind twice":           {[]string{"--target", "kind=a", "--target", "kind=b"}, "kind is given twice"},
		"field of a PR":        {[]string{"--target", "repo=acme/widgets", "--target", "pull=1", "--target", "x=y"}, "takes only repo and pull"},
		"bad repo":             {[]string{"--target", "repo=acme/wid gets", "--target", "pull=1"}, "want OWNER/NAME"},
		"bad JSON":             {[]string{"--target", `{"kind":"q","extra":1}`}, "want {"},
		"no approvers":         {[]string{"--agent", "tickets", "--target", "kind=support_queue", "--target", "queue=s"}, "the run needs named approvers"},
		"another agent's kind": {[]string{"--agent", "triage", "--target", "kind=support_queue", "--target", "queue=s", "--approver", "alice"}, "agent triage takes a github_pull_request target, not a support_queue one"},
		"control in a value":   {[]string{"--agent", "tickets", "--target", "kind=q", "--target", "queue=a\x1bb", "--approver", "alice"}, "printable text"},
	}
	for name, c := range cases {
		_, err := parseStart(t, c.args...)
		require.ErrorContains(t, err, c.want, name)
	}
}

func TestStartHelpNoLongerClaimsAnyAuthenticatedApproverMayDecide(t *testing.T) {
	help := (&startCommand{env: newEnv(func(string) string { return "" }, nil, nil)}).flags().Lookup("approver").Usage
	require.NotContains(t, help, "any authenticated approver")
	require.Contains(t, help, "whoever has write permission on its repository")
	require.Contains(t, help, "a target of another kind needs at least one")
}
