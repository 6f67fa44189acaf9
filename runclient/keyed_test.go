package runclient_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"

	"github.com/agentrun/agentrun/internal/testkit"
	"github.com/agentrun/agentrun/runclient"
)

func keyedRequest(queue, key string, in api.RunInput) runclient.StartRequest {
	return runclient.StartRequest{
		RunID: runclient.KeyedRunID(in.UserID, key), TaskQueue: queue, Input: in, RequestHash: runclient.RequestHash(in),
	}
}

func TestAKeyReusedForAnotherRequestIsAConflictAndARepeatIsTheSameRun(t *testing.T) {
	rc, queue := startStub(t)
	ctx := testContext(t)
	in := api.RunInput{Repo: "acme/widgets", PullNumber: 7, UserID: "carol", Approvers: []string{"bob", "alice"}}
	first, err := rc.Start(ctx, keyedRequest(queue, "k-1", in))
	require.NoError(t, err)

	reordered := in
	reordered.Approvers = []string{"alice", "bob"}
	reordered.Agent = api.DefaultAgent
	again, err := rc.Start(ctx, keyedRequest(queue, "k-1", reordered))
	require.NoError(t, err, "the same approvers in another order, and the default agent named, are the same request")
	require.Equal(t, first, again)

	for name, change := range map[string]func(*api.RunInput){
		"another pull request": func(in *api.RunInput) { in.PullNumber = 8 },
		"another goal":         func(in *api.RunInput) { in.Goal = "security" },
		"another agent":        func(in *api.RunInput) { in.Agent = "triage" },
		"another approver":     func(in *api.RunInput) { in.Approvers = []string{"alice"} },
		"a callback":           func(in *api.RunInput) { in.Callback = &api.Callback{URL: "https://hooks.example.com/a"} },
	} {
		other := in
		change(&other)
		_, err := rc.Start(ctx, keyedRequest(queue, "k-1", other))
		require.ErrorIs(t, err, runclient.ErrIdempotencyConflict, name)
	}
	require.Equal(t, 1, testkit.Executions(t, rc, first.RunID), "no request under the key started a second run")

	var desc runclient.Description
	desc, err = rc.Describe(ctx, first.RunID)
	require.NoError(t, err)
	require.Equal(t, runclient.RequestHash(in), desc.RequestHash, "the run holds the digest of the request that started it")

	// A run from before request hashes holds none: it is taken for the
	// request's, so that a repeat after an upgrade finds it.
	legacy := runclient.StartRequest{RunID: "review-legacy", TaskQueue: queue, Input: in}
	_, err = rc.Start(ctx, legacy)
	require.NoError(t, err)
	legacy.RequestHash = runclient.RequestHash(in)
	found, err := rc.Start(ctx, legacy)
	require.NoError(t, err)
	require.Equal(t, "review-legacy", found.RunID)

	// The same key from another caller is another run.
	dave := in
	dave.UserID = "dave"
	other, err := rc.Start(ctx, keyedRequest(queue, "k-1", dave))
	require.NoError(t, err)
	require.NotEqual(t, first.RunID, other.RunID)
}

func TestConcurrentStartsWithOneKeyMakeOneRun(t *testing.T) {
	rc, queue := startStub(t)
	ctx := testContext(t)
	in := api.RunInput{Repo: "acme/widgets", PullNumber: 3, UserID: "carol"}
	const callers = 8
	results := make([]runclient.Started, callers)
	errs := make([]error, callers)
	var wg sync.WaitGroup
	for i := range callers {
		wg.Go(func() { results[i], errs[i] = rc.Start(ctx, keyedRequest(queue, "same", in)) })
	}
	wg.Wait()
	for i := range callers {
		require.NoError(t, errs[i])
		require.Equal(t, results[0], results[i])
	}
	require.Equal(t, 1, testkit.Executions(t, rc, results[0].RunID))
}

func TestStartRefusesAMalformedAgentAndStartsNothing(t *testing.T) {
	rc, queue := startStub(t)
	ctx := testContext(t)
	for _, agent := range []string{"PR-Review", "pr review", `x' OR 1=1`, "-x", strings.Repeat("a", 64)} {
		in := api.RunInput{Repo: "acme/widgets", PullNumber: 1, UserID: "carol", Agent: agent}
		req := keyedRequest(queue, "bad-agent", in)
		_, err := rc.Start(ctx, req)
		require.ErrorIs(t, err, runclient.ErrBadAgent, agent)
		_, err = rc.Describe(ctx, req.RunID)
		require.ErrorIs(t, err, runclient.ErrRunNotFound, "no run for %q", agent)
	}
}

func TestListPageFiltersByStatusAndAgentAndPagesWithAToken(t *testing.T) {
	rc, queue := startStub(t)
	ctx := testContext(t)
	start := func(key, agent string) string {
		in := api.RunInput{Repo: "acme/widgets", PullNumber: 1, UserID: "carol", Agent: agent}
		started, err := rc.Start(ctx, keyedRequest(queue, key, in))
		require.NoError(t, err)
		return started.RunID
	}
	review1, review2, triage := start("a", ""), start("b", "pr-review"), start("c", "triage")
	// A run waiting for a person, of agent triage (the stub upserts the status).
	waiting := "run-waiting"
	testkit.StartStubRun(t, rc, queue, waiting, "triage", testkit.Input{ActionID: "act-0123456789abcdef", ExpiresIn: time.Hour})

	ids := func(f runclient.ListFilter) []string {
		page, err := rc.ListPage(ctx, f, runclient.MaxPageSize, "")
		require.NoError(t, err)
		var got []string
		for _, r := range page.Runs {
			got = append(got, r.RunID)
		}
		return got
	}
	// Visibility is eventually consistent: wait until every run is indexed as it is.
	require.Eventually(t, func() bool {
		return len(ids(runclient.ListFilter{})) == 4 && len(ids(runclient.ListFilter{Status: api.RunWaitingForUser})) == 1
	}, time.Minute, 50*time.Millisecond)

	require.ElementsMatch(t, []string{review1, review2}, ids(runclient.ListFilter{Agent: api.DefaultAgent}), "a run started without an agent is the default agent's")
	require.ElementsMatch(t, []string{triage, waiting}, ids(runclient.ListFilter{Agent: "triage"}))
	require.ElementsMatch(t, []string{waiting}, ids(runclient.ListFilter{Agent: "triage", Status: api.RunWaitingForUser}))
	require.ElementsMatch(t, []string{triage}, ids(runclient.ListFilter{Agent: "triage", Status: api.RunRunning}))
	require.Empty(t, ids(runclient.ListFilter{Agent: "nobody"}))

	var all []string
	var token string
	for pages := 0; ; pages++ {
		require.Less(t, pages, 4, "two runs a page: the token must run out")
		page, err := rc.ListPage(ctx, runclient.ListFilter{}, 2, token)
		require.NoError(t, err)
		require.LessOrEqual(t, len(page.Runs), 2)
		for _, r := range page.Runs {
			all = append(all, r.RunID)
		}
		if token = page.NextPageToken; token == "" {
			break
		}
	}
	require.ElementsMatch(t, []string{review1, review2, triage, waiting}, all, "the pages hold every run once")

	for _, f := range []runclient.ListFilter{
		{Agent: `x' OR 1=1`}, {Agent: `x" OR "1"="1`}, {Agent: "Triage"}, {Status: `running' OR '1'='1`}, {Status: "terminated"},
	} {
		_, err := rc.ListPage(ctx, f, 10, "")
		require.ErrorIs(t, err, runclient.ErrBadFilter, fmt.Sprint(f))
	}
	first, err := rc.ListPage(ctx, runclient.ListFilter{}, 1, "")
	require.NoError(t, err)
	require.NotEmpty(t, first.NextPageToken)
	for name, token := range map[string]string{
		"not base64": "not base64!", "too short": "AAAA", "made up": "eyJ4IjoxfQeyJ4IjoxfQ",
		"edited": editedToken(first.NextPageToken),
	} {
		_, err := rc.ListPage(ctx, runclient.ListFilter{}, 10, token)
		require.ErrorIs(t, err, runclient.ErrBadPageToken, name)
	}
	_, err = rc.ListPage(ctx, runclient.ListFilter{Agent: "triage"}, 10, first.NextPageToken)
	require.ErrorIs(t, err, runclient.ErrBadPageToken, "a token pages only the listing it came from")
}

func TestInputRulesRefuseWhatGitHubAndTheQueryCannotTake(t *testing.T) {
	for _, ok := range []string{"pr-review", "a", "triage-2", "a" + strings.Repeat("b", 62)} {
		require.True(t, api.ValidAgentName(ok), ok)
	}
	for _, bad := range []string{"", "Pr-review", "pr review", "2fa", "-x", `x' OR 1=1`, `x"`, "ä", "a" + strings.Repeat("b", 63)} {
		require.False(t, api.ValidAgentName(bad), bad)
	}
	for _, ok := range []string{"acme/widgets", "a-b/c.d_e", "A1/x"} {
		require.True(t, runclient.ValidRepo(ok), ok)
	}
	for _, bad := range []string{"", "acme", "acme/", "/w", "-acme/w", "acme-/w", "acme/w/x", "acme/.", "acme/..", "ac me/w", "acme/w'", "acme/" + strings.Repeat("w", 101)} {
		require.False(t, runclient.ValidRepo(bad), bad)
	}
	for _, ok := range []string{"alice", "a-b", "renovate[bot]", strings.Repeat("a", 39)} {
		require.True(t, runclient.ValidLogin(ok), ok)
	}
	for _, bad := range []string{"", "-a", "a-", "a--b", "a b", "a_b", "[bot]", strings.Repeat("a", 40), "alice\n"} {
		require.False(t, runclient.ValidLogin(bad), bad)
	}
}

func TestKeyedRunIDsAreStableAndCannotBeReCut(t *testing.T) {
	require.Equal(t, runclient.KeyedRunID("carol", "k"), runclient.KeyedRunID("carol", "k"))
	require.NotEqual(t, runclient.KeyedRunID("ab", "c"), runclient.KeyedRunID("a", "bc"))
	require.NotEqual(t, runclient.KeyedRunID("a:1", "c"), runclient.KeyedRunID("a", "1:c"))
	require.Regexp(t, `^run-[0-9a-f]{32}$`, runclient.KeyedRunID("carol", "k"))
}

// editedToken changes one character in the middle of token, where every
// bit of it counts.
func editedToken(token string) string {
	b := []byte(token)
	i := len(b) / 2
	if b[i] == 'A' {
		b[i] = 'B'
	} else {
		b[i] = 'A'
	}
	return string(b)
}

// A repeat under one key that names another callback is another request:
// answering it with the first run would drop its callback without a word.
func TestRequestHashCoversTheCallbackAfterItsDefaultDeadline(t *testing.T) {
	in := api.RunInput{Repo: "acme/widgets", PullNumber: 7, UserID: "carol"}
	with := func(url string, deadline time.Duration) api.RunInput {
		out := in
		out.Callback = &api.Callback{URL: url, Deadline: deadline}
		return out
	}
	hooks := runclient.RequestHash(with("https://hooks.example.com/a", 0))

	require.Equal(t, hooks, runclient.RequestHash(with("https://hooks.example.com/a", api.DefaultCallbackDeadline)), "the default deadline, named or not")
	for name, other := range map[string]api.RunInput{
		"no callback":      in,
		"another URL":      with("https://hooks.example.com/b", 0),
		"another deadline": with("https://hooks.example.com/a", time.Hour),
		"another receiver": with("https://evil.example.com/a", 0),
	} {
		require.NotEqual(t, hooks, runclient.RequestHash(other), name)
	}
	require.Equal(t, "sha256:e0ea1057a5541f4fe86958e46e525e31caf029a302c8fe4398a30cced7bedf2e", runclient.RequestHash(in),
		"a request without a callback keeps the digest it had before callbacks counted, so that its repeat finds its run")
}

// A repeat under one key that asks another approval timeout, step limit or
// check run is another request: answering it with the first run would drop
// what it asked without a word.
func TestRequestHashCoversTheTimeoutTheStepLimitAndTheCheckRun(t *testing.T) {
	in := api.RunInput{Repo: "acme/widgets", PullNumber: 7, UserID: "carol"}
	base := runclient.RequestHash(in)
	named := in
	named.ApprovalTimeout, named.MaxSteps = api.DefaultApprovalTimeout, api.DefaultMaxSteps
	require.Equal(t, base, runclient.RequestHash(named), "the defaults, named or not")
	require.Equal(t, "sha256:e0ea1057a5541f4fe86958e46e525e31caf029a302c8fe4398a30cced7bedf2e", base,
		"a request at the defaults keeps the digest it had before these counted, so that its repeat finds its run")

	change := map[string]func(*api.RunInput){
		"another approval timeout": func(in *api.RunInput) { in.ApprovalTimeout = 5 * time.Minute },
		"another step limit":       func(in *api.RunInput) { in.MaxSteps = 3 },
		"a check run":              func(in *api.RunInput) { in.CheckRun = &api.CheckRunInput{} },
		"a check run on a head":    func(in *api.RunInput) { in.CheckRun = &api.CheckRunInput{HeadSHA: strings.Repeat("a", 40)} },
	}
	seen := map[string]string{base: "the request"}
	for name, edit := range change {
		other := in
		edit(&other)
		h := runclient.RequestHash(other)
		require.NotContains(t, seen, h, "%s hashes as %s", name, seen[h])
		seen[h] = name
	}
}

// A keyed start names its agent, and a key an earlier build started a run
// for (under the ID that named every agent pr-review) keeps that run.
func TestAKeyedStartNamesItsAgentAndAKeyUsedBeforeTheUpgradeKeepsItsRun(t *testing.T) {
	rc, queue := startStub(t)
	ctx := testContext(t)
	rec, err := api.NewTarget("recommendation_request", map[string]string{"city": "riverside", "party_size": "2", "budget": "150"})
	require.NoError(t, err)
	in := api.RunInput{Agent: "recommend", UserID: "carol", Approvers: []string{"alice"}}.WithTarget(rec)
	keyed := func(key string, in api.RunInput) runclient.StartRequest {
		return runclient.StartRequest{RunID: runclient.KeyedTargetRunID(in.Agent, rec, key), FormerRunID: runclient.FormerKeyedRunID(rec, key),
			TaskQueue: queue, Input: in, RequestHash: runclient.RequestHash(in)}
	}

	first, err := rc.Start(ctx, keyed("k-new", in))
	require.NoError(t, err)
	require.Regexp(t, `^recommend-150-riverside-2-[0-9a-f]{12}$`, first.RunID)
	again, err := rc.Start(ctx, keyed("k-new", in))
	require.NoError(t, err)
	require.Equal(t, first, again)

	before := keyed("k-old", in)
	before.RunID, before.FormerRunID = runclient.FormerKeyedRunID(rec, "k-old"), ""
	old, err := rc.Start(ctx, before)
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(old.RunID, "pr-review-"), old.RunID)

	repeat, err := rc.Start(ctx, keyed("k-old", in))
	require.NoError(t, err)
	require.Equal(t, old.RunID, repeat.RunID, "the key's run from before the upgrade, not a second")
	_, err = rc.Describe(ctx, runclient.KeyedTargetRunID("recommend", rec, "k-old"))
	var notFound *runclient.NotFoundError
	require.ErrorAs(t, err, &notFound, "nothing started under the new ID")
	other := in
	other.Goal = "somewhere quiet"
	_, err = rc.Start(ctx, keyed("k-old", other))
	require.ErrorIs(t, err, runclient.ErrIdempotencyConflict, "another request under the old key is still refused")
}
