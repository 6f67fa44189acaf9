package testkit

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"testing"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/agentrun/agentrun/activities"
	ghapi "github.com/agentrun/agentrun/github"
	"github.com/agentrun/agentrun/internal/ghsandbox"
	"github.com/agentrun/agentrun/model/offline"
)

// SandboxAppID and SandboxAppSlug name the GitHub App SandboxApp gives a
// sandbox; its bot posts as "agentrun-sandbox[bot]".
const (
	SandboxAppID   = 4242
	SandboxAppSlug = "agentrun-sandbox"
)

// SandboxApp gives sb a GitHub App with a fresh key, installed on every
// owner of its fixture, whose tokens live for lifetime (zero: GitHub's
// hour), and returns the credentials a worker in app mode reads from
// GITHUB_APP_ID and GITHUB_APP_PRIVATE_KEY_FILE, pointed at apiURL.
func SandboxApp(t testing.TB, sb *ghsandbox.Server, apiURL string, lifetime time.Duration) ghapi.Credentials {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatalf("testkit: the app's key: %v", err)
	}
	if err := sb.SetApp(ghsandbox.App{ID: SandboxAppID, Slug: SandboxAppSlug, PublicKey: &key.PublicKey, TokenLifetime: lifetime}); err != nil {
		t.Fatalf("testkit: %v", err)
	}
	return ghapi.Credentials{APIURL: apiURL, AppID: SandboxAppID, AppKey: key}
}

// StartSandboxAppWorker serves sb, makes it speak for a GitHub App
// (SandboxApp) and starts a worker on taskQueue in app mode, identified as
// the app's bot from GET /app, with the offline model; it stops when t ends.
func StartSandboxAppWorker(t testing.TB, c client.Client, taskQueue string, sb *ghsandbox.Server, lifetime time.Duration) {
	t.Helper()
	url, _ := ServeSandbox(t, sb)
	acc, err := ghapi.NewAppAccess(SandboxApp(t, sb, url, lifetime), nil, "")
	if err != nil {
		t.Fatalf("testkit: app access: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := acc.Identify(ctx); err != nil {
		t.Fatalf("testkit: identify the app: %v", err)
	}
	startWorker(t, c, taskQueue, &activities.Activities{GitHub: acc, Model: offline.NewReviewer()})
}
