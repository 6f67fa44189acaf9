package testkit

import (
	"net/http/httptest"
	"testing"

	"github.com/google/go-github/v62/github"
	"go.temporal.io/sdk/client"

	"github.com/agentrun/agentrun/activities"
	"github.com/agentrun/agentrun/agents"
	ghapi "github.com/agentrun/agentrun/github"
	"github.com/agentrun/agentrun/internal/agentworker"
	"github.com/agentrun/agentrun/internal/ghsandbox"
	"github.com/agentrun/agentrun/model/offline"
)

// sandboxToken is sent as GITHUB_TOKEN would be; the sandbox accepts any.
const sandboxToken = "sandbox-token"

// ServeSandbox serves sb over real HTTP until t ends, and returns its URL and
// a go-github client made the way every process makes it.
func ServeSandbox(t testing.TB, sb *ghsandbox.Server) (string, *github.Client) {
	t.Helper()
	srv := httptest.NewServer(sb)
	t.Cleanup(srv.Close)
	gh, err := ghapi.NewClient(srv.URL, sandboxToken)
	if err != nil {
		t.Fatalf("testkit: GitHub client for the sandbox: %v", err)
	}
	return srv.URL, gh
}

// StartSandboxWorker serves sb and starts a worker on taskQueue whose GitHub
// tools call it as its bot, with the offline model; it stops when t ends. It
// is for tests whose sandbox is not the stack's (an edited fixture).
func StartSandboxWorker(t testing.TB, c client.Client, taskQueue string, sb *ghsandbox.Server) {
	t.Helper()
	_, gh := ServeSandbox(t, sb)
	startWorker(t, c, taskQueue, &activities.Activities{GitHub: ghapi.NewAccess(gh, nil, sb.BotLogin()), Model: offline.NewReviewer()})
}

func startWorker(t testing.TB, c client.Client, taskQueue string, acts *activities.Activities) {
	t.Helper()
	w := agentworker.NewWithActivities(c, taskQueue, acts)
	if err := w.Start(); err != nil {
		t.Fatalf("testkit: start the worker on %s: %v", taskQueue, err)
	}
	t.Cleanup(w.Stop)
}

// BuiltinActivities are activities with the built-in tools and agents over
// acc, as registration.Register fills them in for a worker: for tests that
// call the activities without registering them.
func BuiltinActivities(acc *ghapi.Access) *activities.Activities {
	return &activities.Activities{GitHub: acc, Tools: agents.MustBuiltin(acc)}
}
