package github

import (
	"context"
	"strconv"
	"strings"

	gogithub "github.com/google/go-github/v62/github"

	"github.com/agentrun/agentrun/api"
)

// maxIssuePages bounds a look through the bot's issues, newest first: an
// operation's issue is among the newest the bot filed unless it filed a
// thousand since, and then the look says so (ErrProofSearchIncomplete)
// rather than guess.
const maxIssuePages = 10

// FindOperationIssue reads the issues author filed in the repository, newest
// first, and returns the first that proves the operation: author's, whose
// body is exactly the approved body with the key's marker and whose title is
// the approved title. Pull requests (GitHub lists them as issues) are
// skipped. Issues that carry the marker but not that proof are the
// look-alikes, named by issue number. Its error is go-github's,
// unclassified, naming the page that failed, or ErrProofSearchIncomplete.
func FindOperationIssue(ctx context.Context, gh *gogithub.Client, owner, repo, operationKey, approvedTitle, approvedBody, author string) (*gogithub.Issue, []api.IgnoredComment, error) {
	proof := newOperationProof(operationKey, approvedBody, author)
	list := func(ctx context.Context, page int) ([]*gogithub.Issue, *gogithub.Response, error) {
		return gh.Issues.ListByRepo(ctx, owner, repo, &gogithub.IssueListByRepoOptions{
			Creator: author, State: "all", Sort: "created", Direction: "desc",
			ListOptions: gogithub.ListOptions{Page: page, PerPage: PageSize},
		})
	}
	judge := func(is *gogithub.Issue) (bool, *api.IgnoredComment) {
		if is.IsPullRequest() {
			return false, nil
		}
		proves, lookAlike := proof.judgeWritten(int64(is.GetNumber()), is.GetUser().GetLogin(), is.GetBody())
		if proves && !sameTitle(is.GetTitle(), approvedTitle) {
			return false, &api.IgnoredComment{ID: strconv.Itoa(is.GetNumber()), CommentID: int64(is.GetNumber()), Author: is.GetUser().GetLogin(),
				Why: "carries the marker and the approved body but its title is not the approved title (edited, or another issue)"}
		}
		return proves, lookAlike
	}
	found, ok, ignored, err := findProof(ctx, "issues by "+author, maxIssuePages, list, judge)
	if !ok {
		return nil, ignored, err
	}
	return found, ignored, nil
}

// sameTitle compares titles as GitHub may hand them back: the blank around
// a title is not ours to insist on, every other byte is.
func sameTitle(got, approved string) bool {
	return strings.TrimSpace(got) == strings.TrimSpace(approved)
}
