package github_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync/atomic"
	"testing"

	gogithub "github.com/google/go-github/v62/github"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/github"
)

// TestAWriteAnswered307IsNotSentAgainToTheLocationAndIsNoRejection: GitHub
// answers 307 for a renamed repository. Following it would post the comment a
// second time, at the Location, before the run could look for its proof.
func TestAWriteAnswered307IsNotSentAgainToTheLocationAndIsNoRejection(t *testing.T) {
	for _, status := range []int{http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther, http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
		t.Run(http.StatusText(status), func(t *testing.T) {
			var posts, atLocation atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/repos/acme/renamed/issues/1/comments" {
					atLocation.Add(1)
					w.WriteHeader(http.StatusCreated)
					_, _ = w.Write([]byte(`{"id": 7}`))
					return
				}
				posts.Add(1)
				w.Header().Set("Location", "/repos/acme/renamed/issues/1/comments")
				w.WriteHeader(status)
			}))
			t.Cleanup(srv.Close)
			gh, err := github.NewClient(srv.URL, "test-token")
			require.NoError(t, err)

			_, _, err = gh.Issues.CreateComment(context.Background(), "acme", "widgets", 1, &gogithub.IssueComment{Body: gogithub.String("hi")})
			require.Error(t, err)
			require.EqualValues(t, 1, posts.Load())
			require.Zero(t, atLocation.Load(), "the write was sent again to the redirect's Location")

			classified := github.ClassifyError("create comment on acme/widgets#1", err)
			var appErr *temporal.ApplicationError
			if errors.As(classified, &appErr) {
				require.False(t, appErr.NonRetryable(), "a redirect proves nothing about the write")
				require.NotEqual(t, api.ErrTypeGitHubRejected, appErr.Type())
			}
		})
	}
}

// TestAReadOfARenamedRepositoryFollowsItsRedirect keeps what net/http gave
// reads: a 301 for a renamed repository still answers.
func TestAReadOfARenamedRepositoryFollowsItsRedirect(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/repos/acme/renamed/pulls/1" {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"number": 1, "title": "moved"}`))
			return
		}
		http.Redirect(w, r, "/repos/acme/renamed/pulls/1", http.StatusMovedPermanently)
	}))
	t.Cleanup(srv.Close)
	gh, err := github.NewClient(srv.URL, "test-token")
	require.NoError(t, err)
	pr, _, err := gh.PullRequests.Get(context.Background(), "acme", "widgets", 1)
	require.NoError(t, err)
	require.Equal(t, "moved", pr.GetTitle())
}

// TestAReadFollowsNineRedirectsAndStopsAtTheTenth: a read keeps net/http's
// own limit, 10 redirects, so that a redirect loop ends in an error.
func TestAReadFollowsNineRedirectsAndStopsAtTheTenth(t *testing.T) {
	for _, c := range []struct {
		redirects int
		err       string
	}{{9, ""}, {10, "stopped after 10 redirects"}} {
		var requests atomic.Int32
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			requests.Add(1)
			hop, _ := strconv.Atoi(r.URL.Query().Get("hop"))
			if hop < c.redirects {
				http.Redirect(w, r, fmt.Sprintf("/repos/acme/widgets/pulls/1?hop=%d", hop+1), http.StatusMovedPermanently)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"number": 1, "title": "found"}`))
		}))
		gh, err := github.NewClient(srv.URL, "test-token")
		require.NoError(t, err)

		pr, _, err := gh.PullRequests.Get(context.Background(), "acme", "widgets", 1)

		srv.Close()
		if c.err == "" {
			require.NoError(t, err, "%d redirects", c.redirects)
			require.Equal(t, "found", pr.GetTitle())
			require.EqualValues(t, c.redirects+1, requests.Load())
			continue
		}
		require.ErrorContains(t, err, c.err)
		require.EqualValues(t, c.redirects, requests.Load(), "the tenth redirect is not followed")
	}
}
