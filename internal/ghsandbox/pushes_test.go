package ghsandbox

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

type receivedDelivery struct {
	header  http.Header
	payload map[string]any
}

// receiver records the deliveries it gets and checks their signature.
func receiver(t *testing.T, secret string) (*httptest.Server, func() []receivedDelivery) {
	t.Helper()
	var mu sync.Mutex
	var got []receivedDelivery
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mac := hmac.New(sha256.New, []byte(secret))
		mac.Write(body)
		if r.Header.Get("X-Hub-Signature-256") != "sha256="+hex.EncodeToString(mac.Sum(nil)) {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		var p map[string]any
		_ = json.Unmarshal(body, &p)
		mu.Lock()
		got = append(got, receivedDelivery{header: r.Header.Clone(), payload: p})
		mu.Unlock()
		w.WriteHeader(http.StatusAccepted)
	}))
	t.Cleanup(srv.Close)
	return srv, func() []receivedDelivery {
		mu.Lock()
		defer mu.Unlock()
		return append([]receivedDelivery(nil), got...)
	}
}

func TestPullEventsChangeThePullRequestAndDeliverSignedAsGitHub(t *testing.T) {
	sb, srv := startSandbox(t, DefaultFixture())
	hook, received := receiver(t, "s3cret")
	sb.SetWebhook(Webhook{URL: hook.URL, Secret: "s3cret"})
	path := srv.URL + "/_sandbox/pulls/acme/widgets/1/events"
	base := decode[PullRequest](t, call(t, "GET", srv.URL+"/repos/acme/widgets/pulls/1", ""))

	push := `{"action":"synchronize","sender":"bob","commits":[{"message":"Add docs","files":[{"filename":"docs/cache.md","status":"added","patch":"@@ -0,0 +1 @@\n+# Cache"}]}]}`
	a := decode[PullEventAnswer](t, call(t, "POST", path, push))
	require.Equal(t, http.StatusAccepted, a.Delivered, a.DeliveryError)
	require.Equal(t, base.Head.SHA, a.Before)
	pull := decode[PullRequest](t, call(t, "GET", srv.URL+"/repos/acme/widgets/pulls/1", ""))
	require.Equal(t, a.Head, pull.Head.SHA)
	require.Equal(t, base.ChangedFiles+1, pull.ChangedFiles, "a push adds to the files")

	forced := `{"action":"synchronize","force":true,"commits":[{"message":"Rewrite","files":[{"filename":"cache/cache.go","status":"modified","patch":"@@ -1 +1 @@\n-a\n+b"}]}]}`
	f := decode[PullEventAnswer](t, call(t, "POST", path, forced))
	require.Equal(t, 1, decode[PullRequest](t, call(t, "GET", srv.URL+"/repos/acme/widgets/pulls/1", "")).ChangedFiles,
		"a force-push leaves only its commits' files")
	require.NotEqual(t, a.Head, f.Head)

	c := decode[PullEventAnswer](t, call(t, "POST", path, `{"action":"closed"}`))
	require.Equal(t, http.StatusAccepted, c.Delivered)
	require.Equal(t, "closed", decode[PullRequest](t, call(t, "GET", srv.URL+"/repos/acme/widgets/pulls/1", "")).State)
	require.Equal(t, http.StatusBadRequest, call(t, "POST", path, push).status, "a closed pull request takes no push")

	got := received()
	require.Len(t, got, 3)
	schema := loadRESTSchema(t, "pulls-get")
	for i, d := range got {
		require.Equal(t, "pull_request", d.header.Get("X-GitHub-Event"))
		require.Regexp(t, "^[0-9a-f-]{36}$", d.header.Get("X-GitHub-Delivery"))
		require.NoError(t, schema.Validate(d.payload["pull_request"]), "delivery %d's pull_request is GitHub's pull request", i)
	}
	require.Equal(t, "synchronize", got[0].payload["action"])
	require.Equal(t, a.Head, got[0].payload["after"])
	require.Equal(t, "bob", got[0].payload["sender"].(map[string]any)["login"])
	require.Equal(t, "closed", got[2].payload["action"])
}

func TestPullEventsRefuseWhatGitHubWouldNotDo(t *testing.T) {
	_, srv := startSandbox(t, DefaultFixture())
	for body, want := range map[string]string{
		`{"action":"merged"}`:                                            "want opened, synchronize",
		`{"action":"synchronize"}`:                                       "at least one commit",
		`{"action":"opened","commits":[{"message":"x"}]}`:                "takes no commits",
		`{"action":"synchronize","commits":[{"message":"","files":[]}]}`: "a message and at least one file",
		`{"action":"opened","extra":1}`:                                  "bad event",
	} {
		a := call(t, "POST", srv.URL+"/_sandbox/pulls/acme/widgets/1/events", body)
		require.Equal(t, http.StatusBadRequest, a.status, body)
		require.Contains(t, string(a.body), want, body)
	}
	a := call(t, "POST", srv.URL+"/_sandbox/pulls/acme/widgets/9/events", `{"action":"opened"}`)
	require.Equal(t, http.StatusBadRequest, a.status)
	require.True(t, strings.Contains(string(a.body), "no pull request acme/widgets#9"))

	ok := decode[PullEventAnswer](t, call(t, "POST", srv.URL+"/_sandbox/pulls/acme/widgets/1/events", `{"action":"opened"}`))
	require.Contains(t, ok.DeliveryError, "SANDBOX_WEBHOOK_URL", "without a webhook nothing is sent, and the answer says so")
}
