package github_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync/atomic"
	"testing"

	gogithub "github.com/google/go-github/v62/github"
	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/github"
)

// pagedServer answers every GET with page(n) and links a next page while
// more(n) holds, as GitHub's Link header does.
func pagedServer(t *testing.T, page func(n int) any, more func(n int) bool) (*gogithub.Client, *atomic.Int32) {
	t.Helper()
	var requests atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		n, _ := strconv.Atoi(r.URL.Query().Get("page"))
		n = max(n, 1)
		if more(n) {
			q := r.URL.Query()
			q.Set("page", strconv.Itoa(n+1))
			w.Header().Set("Link", fmt.Sprintf(`<http://%s%s?%s>; rel="next"`, r.Host, r.URL.Path, q.Encode()))
		}
		w.Header().Set("Content-Type", "application/json")
		if v := page(n); v != nil {
			_ = json.NewEncoder(w).Encode(v)
			return
		}
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = w.Write([]byte(`{"message":"Server Error"}`))
	}))
	t.Cleanup(srv.Close)
	gh, err := github.NewClient(srv.URL, "")
	require.NoError(t, err)
	return gh, &requests
}

func review(id int64, author, body string) *gogithub.PullRequestReview {
	return &gogithub.PullRequestReview{ID: gogithub.Int64(id), User: &gogithub.User{Login: gogithub.String(author)}, Body: gogithub.String(body)}
}

func TestFindOperationReviewStopsAtItsPageBoundWithoutClaimingAbsence(t *testing.T) {
	marked := github.MarkedBody("Approved text", "run-1:2")
	gh, requests := pagedServer(t, func(n int) any {
		return []*gogithub.PullRequestReview{review(int64(n), "mallory", marked)}
	}, func(int) bool { return true })
	found, ignored, err := github.FindOperationReview(context.Background(), gh, demoPR, "run-1:2", "Approved text", "bot")
	require.ErrorIs(t, err, github.ErrProofSearchIncomplete)
	require.Nil(t, found)
	require.Len(t, ignored, api.MaxIgnoredComments, "look-alikes are reported, but boundedly")
	require.Equal(t, int32(30), requests.Load())
}

func TestFindOperationReviewReadsEveryPageToTheProof(t *testing.T) {
	gh, _ := pagedServer(t, func(n int) any {
		if n == 4 {
			return []*gogithub.PullRequestReview{review(44, "BOT", github.MarkedBody("Approved text", "run-1:2"))}
		}
		return []*gogithub.PullRequestReview{review(int64(n), "alice", "LGTM")}
	}, func(n int) bool { return n < 6 })
	found, ignored, err := github.FindOperationReview(context.Background(), gh, demoPR, "run-1:2", "Approved text", "bot")
	require.NoError(t, err)
	require.Equal(t, int64(44), found.GetID())
	require.Empty(t, ignored)
}

func TestFindOperationReviewNamesThePageThatFailed(t *testing.T) {
	gh, _ := pagedServer(t, func(n int) any {
		if n == 2 {
			return nil
		}
		return []*gogithub.PullRequestReview{review(1, "alice", "LGTM")}
	}, func(n int) bool { return n < 3 })
	found, _, err := github.FindOperationReview(context.Background(), gh, demoPR, "run-1:2", "Approved text", "bot")
	require.Nil(t, found)
	require.ErrorContains(t, err, "list reviews (page 2)")
	require.NotErrorIs(t, err, github.ErrProofSearchIncomplete)
}

func TestFindOperationReviewEndsWithNoProofWhenTheListingEnds(t *testing.T) {
	gh, _ := pagedServer(t, func(int) any {
		return []*gogithub.PullRequestReview{
			review(1, "bot", "Approved text"),
			review(2, "bot", github.MarkedBody("Approved text", "run-1:20")),
			review(3, "bot", github.MarkedBody("Approved text, edited", "run-1:2")),
		}
	}, func(int) bool { return false })
	found, ignored, err := github.FindOperationReview(context.Background(), gh, demoPR, "run-1:2", "Approved text", "bot")
	require.NoError(t, err)
	require.Nil(t, found)
	require.Len(t, ignored, 1)
	require.Equal(t, int64(3), ignored[0].CommentID)
	require.Contains(t, ignored[0].Why, "not the approved body")
}
