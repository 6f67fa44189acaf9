package ghsandbox

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v62/github"
	"github.com/stretchr/testify/require"
)

func TestStatusFaultAppliesToCountRequestsThenClears(t *testing.T) {
	sb, srv := startSandbox(t, DefaultFixture())
	require.NoError(t, sb.AddFault(Fault{Op: OpGetPullRequest, Mode: ModeStatus, Status: 502, Count: 2}))
	url := srv.URL + "/repos/acme/widgets/pulls/1"

	require.Equal(t, http.StatusBadGateway, call(t, "GET", url, "").status)
	remaining := decode[[]Fault](t, call(t, "GET", srv.URL+"/_sandbox/faults", ""))
	require.Len(t, remaining, 1)
	require.Equal(t, 1, remaining[0].Count)

	require.Equal(t, http.StatusBadGateway, call(t, "GET", url, "").status)
	require.Equal(t, http.StatusOK, call(t, "GET", url, "").status)
	require.Empty(t, sb.Faults())
}

func TestFaultWithAfterLetsRequestsThroughFirst(t *testing.T) {
	sb, srv := startSandbox(t, DefaultFixture())
	require.NoError(t, sb.AddFault(Fault{Op: OpListComments, Mode: ModeStatus, Status: 403, After: 1, Count: 2}))
	url := srv.URL + "/repos/acme/widgets/issues/1/comments"

	require.Equal(t, http.StatusOK, call(t, "GET", url, "").status)
	require.Equal(t, http.StatusForbidden, call(t, "GET", url, "").status)
	require.Equal(t, http.StatusForbidden, call(t, "GET", url, "").status)
	require.Equal(t, http.StatusOK, call(t, "GET", url, "").status)
	require.Empty(t, sb.Faults())
}

func TestFaultsForOneOpApplyInQueueOrderAndLeaveOtherOpsAlone(t *testing.T) {
	sb, srv := startSandbox(t, DefaultFixture())
	a := call(t, "POST", srv.URL+"/_sandbox/faults",
		`[{"op":"get_pull_request","mode":"status","status":500},{"op":"get_pull_request","mode":"status","status":503}]`)
	require.Equal(t, http.StatusCreated, a.status, string(a.body))

	require.Equal(t, http.StatusOK, call(t, "GET", srv.URL+"/repos/acme/widgets/pulls/1/files", "").status)
	require.Equal(t, http.StatusInternalServerError, call(t, "GET", srv.URL+"/repos/acme/widgets/pulls/1", "").status)
	require.Equal(t, http.StatusServiceUnavailable, call(t, "GET", srv.URL+"/repos/acme/widgets/pulls/1", "").status)
	require.Empty(t, sb.Faults())
}

func TestStatusFaultDoesNotPerformTheAction(t *testing.T) {
	sb, srv := startSandbox(t, DefaultFixture())
	require.NoError(t, sb.AddFault(Fault{Op: OpCreateComment, Mode: ModeStatus, Status: 500}))

	a := call(t, "POST", srv.URL+"/repos/acme/widgets/issues/1/comments", `{"body":"x"}`)

	require.Equal(t, http.StatusInternalServerError, a.status)
	require.Empty(t, sb.Comments("acme", "widgets", 1))
}

func TestDeleteFaultsClearsTheQueue(t *testing.T) {
	sb, srv := startSandbox(t, DefaultFixture())
	require.NoError(t, sb.AddFault(Fault{Op: OpListComments, Mode: ModeStatus, Status: 500, Count: 5}))

	require.Equal(t, http.StatusNoContent, call(t, "DELETE", srv.URL+"/_sandbox/faults", "").status)

	require.Empty(t, sb.Faults())
	require.Equal(t, http.StatusOK, call(t, "GET", srv.URL+"/repos/acme/widgets/issues/1/comments", "").status)
}

func TestBadFaultJSONIsRejectedWithAClearMessage(t *testing.T) {
	_, srv := startSandbox(t, DefaultFixture())
	cases := map[string]struct{ body, want string }{
		"malformed":             {`{"op":`, "decode"},
		"empty":                 {``, "empty body"},
		"unknown field":         {`{"op":"list_files","mode":"status","status":500,"retry_after":3}`, `unknown field "retry_after"`},
		"unknown op":            {`{"op":"merge","mode":"status","status":500}`, `op "merge"`},
		"unknown mode":          {`{"op":"list_files","mode":"explode"}`, `mode "explode"`},
		"status out of range":   {`{"op":"list_files","mode":"status","status":200}`, "between 400 and 599"},
		"delay without delayMs": {`{"op":"list_files","mode":"delay"}`, "delayMs"},
		"land_late without it":  {`{"op":"create_comment","mode":"land_late"}`, "delayMs"},
		"negative count":        {`{"op":"list_files","mode":"drop_response","count":-1}`, "negative"},
		"status on drop":        {`{"op":"list_files","mode":"drop_response","status":500}`, "only apply to mode status"},
		"retryAfter on a 500":   {`{"op":"list_files","mode":"status","status":500,"retryAfter":3}`, "403 or 429"},
		"trailing data":         {`{"op":"list_files","mode":"drop_response"} {}`, "after the JSON value"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			a := call(t, "POST", srv.URL+"/_sandbox/faults", c.body)
			require.Equal(t, http.StatusBadRequest, a.status)
			require.Contains(t, decode[map[string]string](t, a)["message"], c.want)
		})
	}
	require.Empty(t, decode[[]Fault](t, call(t, "GET", srv.URL+"/_sandbox/faults", "")))
}

func TestOneBadFaultInAListQueuesNone(t *testing.T) {
	sb, srv := startSandbox(t, DefaultFixture())

	a := call(t, "POST", srv.URL+"/_sandbox/faults", `[{"op":"list_files","mode":"drop_response"},{"op":"nope","mode":"drop_response"}]`)

	require.Equal(t, http.StatusBadRequest, a.status)
	require.Contains(t, string(a.body), "fault 1")
	require.Empty(t, sb.Faults())
}

func TestDropResponseCreatesTheCommentButAnswersNothing(t *testing.T) {
	sb, srv := startSandbox(t, DefaultFixture())
	require.NoError(t, sb.AddFault(Fault{Op: OpCreateComment, Mode: ModeDropResponse}))

	resp, err := http.Post(srv.URL+"/repos/acme/widgets/issues/1/comments", "application/json", strings.NewReader(`{"body":"lost"}`))
	if err == nil {
		resp.Body.Close()
	}

	require.Error(t, err)
	comments := sb.Comments("acme", "widgets", 1)
	require.Len(t, comments, 1)
	require.Equal(t, "lost", comments[0].Body)
	log := sb.Requests()
	require.Len(t, log, 1)
	require.Equal(t, RequestRecord{Op: OpCreateComment, Method: "POST", Path: "/repos/acme/widgets/issues/1/comments",
		At: log[0].At, Status: http.StatusCreated, Fault: ModeDropResponse}, log[0])
}

func TestDelayFaultHoldsTheAnswerAfterActing(t *testing.T) {
	sb, srv := startSandbox(t, DefaultFixture())
	const delay = 200 * time.Millisecond
	require.NoError(t, sb.AddFault(Fault{Op: OpCreateComment, Mode: ModeDelay, DelayMs: int(delay / time.Millisecond)}))

	start := time.Now()
	a := call(t, "POST", srv.URL+"/repos/acme/widgets/issues/1/comments", `{"body":"slow"}`)

	require.Equal(t, http.StatusCreated, a.status)
	require.GreaterOrEqual(t, time.Since(start), delay)
	require.Len(t, sb.Comments("acme", "widgets", 1), 1)
}

func TestDelayFaultFreesTheHandlerWhenTheClientGivesUp(t *testing.T) {
	sb, srv := startSandbox(t, DefaultFixture())
	require.NoError(t, sb.AddFault(Fault{Op: OpGetPullRequest, Mode: ModeDelay, DelayMs: int(time.Hour / time.Millisecond)}))
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, "GET", srv.URL+"/repos/acme/widgets/pulls/1", nil)
	require.NoError(t, err)

	done := make(chan error, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		done <- err
	}()
	require.Eventually(t, func() bool { return len(sb.Requests()) == 1 }, 5*time.Second, 5*time.Millisecond)
	cancel()
	require.ErrorIs(t, <-done, context.Canceled)

	// Close waits for every handler, so it returns only once the held one let go.
	closed := make(chan struct{})
	go func() { srv.Close(); close(closed) }()
	require.Eventually(t, func() bool {
		select {
		case <-closed:
			return true
		default:
			return false
		}
	}, 10*time.Second, 10*time.Millisecond)
}

func TestRequestLogRecordsOpStatusAndFault(t *testing.T) {
	sb, srv := startSandbox(t, DefaultFixture())
	require.NoError(t, sb.AddFault(Fault{Op: OpListComments, Mode: ModeStatus, Status: 500}))
	call(t, "GET", srv.URL+"/repos/acme/widgets/issues/1/comments", "")
	call(t, "GET", srv.URL+"/repos/acme/widgets/issues/1/comments?per_page=100", "")

	log := decode[[]RequestRecord](t, call(t, "GET", srv.URL+"/_sandbox/requests", ""))

	require.Len(t, log, 2)
	require.Equal(t, OpListComments, log[0].Op)
	require.Equal(t, 500, log[0].Status)
	require.Equal(t, ModeStatus, log[0].Fault)
	require.Equal(t, 200, log[1].Status)
	require.Empty(t, log[1].Fault)
	require.False(t, log[1].At.Before(log[0].At))

	require.Equal(t, http.StatusNoContent, call(t, "DELETE", srv.URL+"/_sandbox/requests", "").status)
	require.Empty(t, sb.Requests())
}

func TestSecondaryRateLimitFaultIsAnAbuseRateLimitErrorToGoGitHub(t *testing.T) {
	sb, gh := sandboxAndClient(t)
	require.NoError(t, sb.AddFault(Fault{Op: OpGetPullRequest, Mode: ModeStatus, Status: 403, RetryAfter: 7}))

	_, _, err := gh.PullRequests.Get(context.Background(), "acme", "widgets", 1)

	var secondary *github.AbuseRateLimitError
	require.True(t, errors.As(err, &secondary), "got %T: %v", err, err)
	require.NotNil(t, secondary.RetryAfter)
	require.Equal(t, 7*time.Second, *secondary.RetryAfter)
}

func TestPrimaryRateLimitFaultIsARateLimitErrorToGoGitHub(t *testing.T) {
	sb, gh := sandboxAndClient(t)
	require.NoError(t, sb.AddFault(Fault{Op: OpListComments, Mode: ModeStatus, Primary: true, RetryAfter: 30}))

	_, _, err := gh.Issues.ListComments(context.Background(), "acme", "widgets", 1, nil)

	var primary *github.RateLimitError
	require.True(t, errors.As(err, &primary), "got %T: %v", err, err)
	require.Equal(t, 0, primary.Rate.Remaining)
	require.WithinDuration(t, time.Now().Add(30*time.Second), primary.Rate.Reset.Time, 2*time.Second)
}

// go-github v62 recognises rate limits only on 403s; a 429 carries the same
// headers and body but arrives as an ErrorResponse.
func TestTooManyRequestsFaultCarriesRetryAfter(t *testing.T) {
	sb, gh := sandboxAndClient(t)
	require.NoError(t, sb.AddFault(Fault{Op: OpCreateComment, Mode: ModeStatus, Status: 429, RetryAfter: 4}))

	_, _, err := gh.Issues.CreateComment(context.Background(), "acme", "widgets", 1, &github.IssueComment{Body: github.String("x")})

	var resp *github.ErrorResponse
	require.True(t, errors.As(err, &resp), "got %T: %v", err, err)
	require.Equal(t, http.StatusTooManyRequests, resp.Response.StatusCode)
	require.Equal(t, "4", resp.Response.Header.Get("Retry-After"))
	require.True(t, strings.HasSuffix(resp.DocumentationURL, "secondary-rate-limits"))
}

func sandboxAndClient(t *testing.T) (*Server, *github.Client) {
	t.Helper()
	sb, srv := startSandbox(t, DefaultFixture())
	gh, err := github.NewClient(nil).WithEnterpriseURLs(srv.URL+"/api/v3/", srv.URL+"/api/uploads/")
	require.NoError(t, err)
	return sb, gh
}

func TestLandLateFaultCreatesTheCommentAfterItsClientHasGone(t *testing.T) {
	sb, srv := startSandbox(t, DefaultFixture())
	require.NoError(t, sb.AddFault(Fault{Op: OpCreateComment, Mode: ModeLandLate, DelayMs: 300}))
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, "POST", srv.URL+"/repos/acme/widgets/issues/1/comments", strings.NewReader(`{"body":"in flight"}`))
	require.NoError(t, err)

	done := make(chan error, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		done <- err
	}()
	require.Eventually(t, func() bool { return len(sb.Requests()) == 1 }, 5*time.Second, 5*time.Millisecond)
	cancel()
	require.ErrorIs(t, <-done, context.Canceled)
	require.Empty(t, sb.Comments("acme", "widgets", 1), "the comment has not landed when its client gives up")

	require.Eventually(t, func() bool { return len(sb.Comments("acme", "widgets", 1)) == 1 }, 5*time.Second, 5*time.Millisecond,
		"the request its client gave up on lands")
	require.Equal(t, "in flight", sb.Comments("acme", "widgets", 1)[0].Body)
	require.Eventually(t, func() bool { return sb.Requests()[0].Status == http.StatusCreated }, 5*time.Second, 5*time.Millisecond)
	require.Equal(t, ModeLandLate, sb.Requests()[0].Fault)
}
