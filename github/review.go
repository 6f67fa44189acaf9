package github

import (
	"context"

	gogithub "github.com/google/go-github/v62/github"

	"github.com/agentrun/agentrun/api"
)

// maxReviewPages bounds a look through one pull request's reviews: 3,000
// reviews is far beyond any real pull request, and a bound keeps a hostile or
// broken server from paging us forever.
const maxReviewPages = 30

// FindOperationReview reads the pull request's reviews and returns the first
// that proves the operation: author's, whose body is exactly the approved
// body with the key's marker (the rule FindOperationComment applies).
// Reviews that carry the marker but not that proof are the look-alikes,
// named by review ID. Its error is go-github's, unclassified, naming the page
// that failed, or ErrProofSearchIncomplete.
func FindOperationReview(ctx context.Context, gh *gogithub.Client, t api.Target, operationKey, approvedBody, author string) (*gogithub.PullRequestReview, []api.IgnoredComment, error) {
	proof := newOperationProof(operationKey, approvedBody, author)
	list := func(ctx context.Context, page int) ([]*gogithub.PullRequestReview, *gogithub.Response, error) {
		return gh.PullRequests.ListReviews(ctx, t.Owner, t.Repo, t.PullNumber, &gogithub.ListOptions{Page: page, PerPage: PageSize})
	}
	judge := func(r *gogithub.PullRequestReview) (bool, *api.IgnoredComment) {
		return proof.judgeWritten(r.GetID(), r.GetUser().GetLogin(), r.GetBody())
	}
	found, ok, ignored, err := findProof(ctx, "reviews", maxReviewPages, list, judge)
	if !ok {
		return nil, ignored, err
	}
	return found, ignored, nil
}
