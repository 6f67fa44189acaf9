package activities_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/activities"
	"github.com/agentrun/agentrun/api"
	ghapi "github.com/agentrun/agentrun/github"
	"github.com/agentrun/agentrun/internal/ghsandbox"
	"github.com/agentrun/agentrun/internal/testkit"
)

var demoPR = api.Target{Owner: "acme", Repo: "widgets", PullNumber: 1}

type sandbox struct{ *ghsandbox.Server }

// newSandbox serves fixture over real HTTP and gives the activities, over
// the built-in tools, a real go-github client on it, made the way the
// worker makes it. The GitHub tools' own tests are in tools/ghtools; these
// are the activities' part: the approved digest, the bounds, the
// permission check.
func newSandbox(t *testing.T, fixture ghsandbox.Fixture) (sandbox, *activities.Activities) {
	t.Helper()
	sb := ghsandbox.New(fixture)
	_, gh := testkit.ServeSandbox(t, sb)
	return sandbox{Server: sb}, testkit.BuiltinActivities(ghapi.NewAccess(gh, nil, ""))
}

func (s sandbox) addFault(t *testing.T, f ghsandbox.Fault) {
	t.Helper()
	require.NoError(t, s.AddFault(f))
}
