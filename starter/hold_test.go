package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// Each hold and release says what the holds workflow did with it, and one
// that changed nothing exits 1 saying why: an operator is never told
// "released" while the runs stay held, nor "held" for a hold refused.
func TestHoldAndReleaseSayWhatTheyDidAndExit1WhenNothingChanged(t *testing.T) {
	s := startStack(t)
	held := "held agent pr-review: every matching run stops before its next side effect; an action already sent finishes"

	r := s.starter("hold", "--agent", "PR-Review ", "--as", "alice", "--reason", "bad deploy")
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, held+"\n", r.stdout)
	r = s.starter("hold", "--agent", "pr-review", "--as", "bob", "--reason", "security incident")
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, held+"; also held by alice\n", r.stdout)

	r = s.starter("release", "--agent", "pr-review", "--as", "carol", "--reason", "not mine")
	require.Equal(t, 1, r.code)
	require.Equal(t, "nothing to release: no hold on agent pr-review by carol; held by alice, bob (a release with all lifts every hold on it)\n", r.stderr)
	r = s.starter("release", "--agent", "pr-review", "--as", "alice", "--reason", "fixed")
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, "released your hold on agent pr-review; also held by bob: the runs it matches stay held until those are released\n", r.stdout)
	r = s.starter("release", "--agent", "pr-review", "--as", "carol", "--all", "--reason", "incident over")
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, "released agent pr-review: the runs it held go on, each sending its action once, unless another hold still matches them (starter holds)\n", r.stdout)
	r = s.starter("release", "--agent", "pr-review", "--as", "carol", "--all", "--reason", "again")
	require.Equal(t, 1, r.code)
	require.Equal(t, "nothing to release: no hold on agent pr-review\n", r.stderr)

	r = s.starter("holds")
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, "no holds")
	require.Contains(t, r.stdout, "release  agent pr-review  by carol: incident over (releases the hold placed by bob: security incident)")
}
