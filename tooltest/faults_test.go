package tooltest_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/tooltest"
)

// proxied is the notes service behind a proxy, and a client that never
// follows a redirect.
func proxied(t *testing.T) (notesFake, *http.Client) {
	t.Helper()
	fake := newNotes(t)
	return fake, &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

func post(ctx context.Context, c *http.Client, url string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url+"/notes", strings.NewReader(`{"key":"k","text":"t"}`))
	if err != nil {
		return nil, err
	}
	return c.Do(req)
}

func TestTheProxyPassesRequestsThroughUntilAFaultIsArmed(t *testing.T) {
	fake, c := proxied(t)
	resp, err := post(t.Context(), c, fake.URL)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusCreated, resp.StatusCode)
	require.Equal(t, 1, fake.Effects())
	require.False(t, fake.Armed())
}

func TestALostAnswerTakesEffectAndAnswersNothingOrWhatItIsTold(t *testing.T) {
	fake, c := proxied(t)
	fake.LoseNextAnswer(0)
	_, err := post(t.Context(), c, fake.URL)
	require.Error(t, err, "the connection closed unanswered")
	require.Equal(t, 1, fake.Effects(), "but the note was kept")

	fake.LoseNextAnswer(http.StatusBadGateway)
	resp, err := post(t.Context(), c, fake.URL)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusBadGateway, resp.StatusCode)
	require.Equal(t, 2, fake.Effects())

	fake.LoseNextAnswer(http.StatusTemporaryRedirect)
	resp, err = post(t.Context(), c, fake.URL)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusTemporaryRedirect, resp.StatusCode)
	require.Equal(t, "/notes", resp.Header.Get("Location"), "a redirect to the request itself")
	require.Equal(t, 3, fake.Effects())
	require.False(t, fake.Armed(), "each fault meets one request")
}

func TestAHeldCreateLandsAfterItsClientHasGone(t *testing.T) {
	fake, c := proxied(t)
	fake.HoldNextCreate(2 * time.Second)
	// The client gives up well before the create lands.
	ctx, cancel := context.WithTimeout(t.Context(), 500*time.Millisecond)
	defer cancel()
	_, err := post(ctx, c, fake.URL)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.False(t, fake.Armed(), "the proxy took the request")
	require.Zero(t, fake.Effects(), "not landed yet")
	require.Eventually(t, func() bool { return fake.Effects() == 1 }, 10*time.Second, 10*time.Millisecond, "it lands without its client")
}

func TestARefusedListIsAnsweredWithoutLookingAndOnlyLooksAreRefused(t *testing.T) {
	fake, c := proxied(t)
	fake.RefuseNextList()
	fake.IsLook = func(r *http.Request, _ []byte) bool { return r.URL.Path == "/notes" }
	other, err := c.Get(fake.URL + "/health")
	require.NoError(t, err)
	other.Body.Close()
	require.Equal(t, http.StatusOK, other.StatusCode, "no look: passed through, the fault still armed")
	require.True(t, fake.Armed())

	resp, err := c.Get(fake.URL + "/notes?key=k")
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, http.StatusServiceUnavailable, resp.StatusCode, string(body))
	require.False(t, fake.Armed())
}

func TestTheFaultNamesAreTheMatrixInOrder(t *testing.T) {
	require.Equal(t, []string{"answer lost", "5xx after the effect", "timeout", "killed in flight", "lands late after a kill",
		"redirect", "refused look", "replayed approval", "edited approval"}, tooltest.FaultNames())
}

func TestTheTableShowsEachFaultsSettlingAnswerAndFAIL(t *testing.T) {
	results := tooltest.Table([]tooltest.Row{{Action: "x", Results: []tooltest.Result{
		{Fault: "answer lost", Answers: []string{"found"}},
		{Fault: "refused look", Answers: []string{"error", "found"}},
		{Fault: "timeout", Answers: []string{"not_created", "not_created", "found"}},
		{Fault: "redirect", Problems: []string{"two effects"}},
	}}})
	require.Contains(t, results, "| x | found | — | found | — | — | FAIL | error → found | — | — |\n")
}
