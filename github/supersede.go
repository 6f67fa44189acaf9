package github

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	gogithub "github.com/google/go-github/v62/github"
	"go.temporal.io/sdk/temporal"

	"github.com/agentrun/agentrun/api"
)

// supersededMark ends a summary line already marked superseded, by any
// head: a review is marked once, by the first run that took over.
var supersededMark = regexp.MustCompile(`\((superseded by [0-9a-f]{40}|pull request closed)(; run \S+ took over)?\)$`)

// SupersededBody is body with its summary line (its first line) marked
// superseded: struck through, a heading kept a heading, and followed by
// "(superseded by <head>; run <by> took over)" or "(pull request
// closed)". Every other line, the operation marker included, is kept. A
// body whose summary line is already marked is returned as it is, so
// that SupersededBody(SupersededBody(b)) == SupersededBody(b): the edit's
// final body, which its reconcile compares the comment with.
func SupersededBody(body, head string, closed bool, by string) string {
	first, rest, hasRest := strings.Cut(body, "\n")
	first = strings.TrimSuffix(first, "\r")
	if supersededMark.MatchString(first) {
		return body
	}
	why := "superseded by " + head
	if closed {
		why = "pull request closed"
	}
	if by != "" {
		why += "; run " + by + " took over"
	}
	text := strings.TrimLeft(first, "#")
	heading := first[:len(first)-len(text)]
	if heading != "" && !strings.HasPrefix(text, " ") {
		heading, text = "", first // "#tag" is no heading
	}
	text = strings.TrimSpace(text)
	marked := heading
	if heading != "" {
		marked += " "
	}
	if text != "" {
		marked += "~~" + text + "~~ "
	}
	marked += "(" + why + ")"
	if !hasRest {
		return marked
	}
	return marked + "\n" + rest
}

// MarkSuperseded edits the summary line of an older run's posted review
// comment (api/supersede.go). It reads the comment first: one that already
// shows the final body is found and not edited again, so that a retry after
// a lost answer leaves the comment edited once. It edits only a comment
// that proves itself the older run's review (on the target's pull request,
// written by this worker's identity, carrying that run's operation
// marker); anything else is refused without a write.
func (a *Access) MarkSuperseded(ctx context.Context, req api.MarkSupersededRequest) (api.MarkSupersededResult, error) {
	t := req.Target
	op := fmt.Sprintf("mark run %s's review (comment %d) on %s/%s#%d superseded", req.Review.Run, req.Review.CommentID, t.Owner, t.Repo, t.PullNumber)
	if err := req.Review.Validate(); err != nil || !t.IsPullRequest() {
		return api.MarkSupersededResult{}, temporal.NewNonRetryableApplicationError(op+": the request names no pull request or no review", api.ErrTypeInvalidInput, err)
	}
	gh, err := a.ClientFor(op, t)
	if err != nil {
		return api.MarkSupersededResult{}, err
	}
	c, _, err := gh.Issues.GetComment(ctx, t.Owner, t.Repo, req.Review.CommentID)
	if err != nil {
		return api.MarkSupersededResult{}, ClassifyError(op+": read the comment", err)
	}
	self, err := a.BotLogin(ctx, gh, op)
	if err != nil {
		return api.MarkSupersededResult{}, err
	}
	if why := notRunsReview(c, t, req.Review.Run, self); why != "" {
		return api.MarkSupersededResult{}, temporal.NewNonRetryableApplicationError(op+": refused: "+why, api.ErrTypeGitHubRejected, nil)
	}
	out := api.MarkSupersededResult{URL: c.GetHTMLURL()}
	final := SupersededBody(c.GetBody(), req.Head, req.Closed, req.By)
	if final == c.GetBody() {
		out.Found = true
		return out, nil
	}
	edited, _, err := gh.Issues.EditComment(ctx, t.Owner, t.Repo, req.Review.CommentID, &gogithub.IssueComment{Body: &final})
	if err != nil {
		return api.MarkSupersededResult{}, ClassifyError(op+": edit", err)
	}
	if edited.GetHTMLURL() != "" {
		out.URL = edited.GetHTMLURL()
	}
	return out, nil
}

// notRunsReview says why c is not run's posted review on t, or "".
func notRunsReview(c *gogithub.IssueComment, t api.Target, run, self string) string {
	wantIssue := strings.ToLower(fmt.Sprintf("/repos/%s/%s/issues/%d", t.Owner, t.Repo, t.PullNumber))
	switch {
	case !strings.HasSuffix(strings.ToLower(c.GetIssueURL()), wantIssue):
		return "the comment is not on this pull request"
	case !api.SameLogin(c.GetUser().GetLogin(), self):
		return fmt.Sprintf("the comment was written by %s, not by this worker's GitHub identity %s", c.GetUser().GetLogin(), self)
	case !strings.Contains(c.GetBody(), strings.TrimSuffix(api.OperationMarker(run+":"), " -->")):
		return "the comment carries no operation marker of run " + run
	}
	return ""
}
