package activities

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/google/go-github/v62/github"
	"go.temporal.io/sdk/temporal"
)

// maxPatchBytes bounds one file's patch, so that a single huge file cannot
// crowd the rest of the pull request out of the model's context.
const maxPatchBytes = 16 << 10

// githubPageSize is GitHub's largest page: the fewer requests a full listing
// takes, the fewer chances it has to hit a rate limit half way.
const githubPageSize = 100

// errTypeInvalidInput marks input no attempt can succeed with.
const errTypeInvalidInput = "InvalidInput"

// GetPullRequest reads the pull request under review.
func (a *Activities) GetPullRequest(ctx context.Context, t Target) (PullRequest, error) {
	gh, err := a.githubClient()
	if err != nil {
		return PullRequest{}, err
	}
	pr, _, err := gh.PullRequests.Get(ctx, t.Owner, t.Repo, t.PullNumber)
	if err != nil {
		return PullRequest{}, classifyGitHubError("get pull request "+targetRef(t), err)
	}
	return PullRequest{
		Number:       pr.GetNumber(),
		Title:        pr.GetTitle(),
		Body:         pr.GetBody(),
		Author:       pr.GetUser().GetLogin(),
		State:        pr.GetState(),
		HeadRef:      pr.GetHead().GetRef(),
		BaseRef:      pr.GetBase().GetRef(),
		HeadSHA:      pr.GetHead().GetSHA(),
		Additions:    pr.GetAdditions(),
		Deletions:    pr.GetDeletions(),
		ChangedFiles: pr.GetChangedFiles(),
		HTMLURL:      pr.GetHTMLURL(),
	}, nil
}

// ListPullRequestFiles lists every file the pull request changes, across all pages.
func (a *Activities) ListPullRequestFiles(ctx context.Context, t Target) ([]PullRequestFile, error) {
	gh, err := a.githubClient()
	if err != nil {
		return nil, err
	}
	files := []PullRequestFile{}
	opts := &github.ListOptions{PerPage: githubPageSize}
	for {
		page, resp, err := gh.PullRequests.ListFiles(ctx, t.Owner, t.Repo, t.PullNumber, opts)
		if err != nil {
			return nil, classifyGitHubError(fmt.Sprintf("list files of %s (page %d)", targetRef(t), max(opts.Page, 1)), err)
		}
		for _, f := range page {
			files = append(files, pullRequestFile(f))
		}
		if resp.NextPage == 0 {
			return files, nil
		}
		opts.Page = resp.NextPage
	}
}

func pullRequestFile(f *github.CommitFile) PullRequestFile {
	file := PullRequestFile{
		Filename:  f.GetFilename(),
		Status:    f.GetStatus(),
		Additions: f.GetAdditions(),
		Deletions: f.GetDeletions(),
		Patch:     f.GetPatch(),
	}
	if len(file.Patch) > maxPatchBytes {
		sum := sha256.Sum256([]byte(file.Patch))
		file.PatchBytes = len(file.Patch)
		file.PatchSHA256 = hex.EncodeToString(sum[:])
		file.Patch = truncatePatch(file.Patch, maxPatchBytes)
		file.PatchTruncated = true
	}
	return file
}

// truncatePatch cuts patch to at most limit bytes, at the end of a line when
// one ends in the second half of the budget, and never inside a UTF-8 rune.
func truncatePatch(patch string, limit int) string {
	cut := patch[:limit]
	if nl := strings.LastIndexByte(cut, '\n'); nl >= limit/2 {
		return cut[:nl+1]
	}
	for range utf8.UTFMax - 1 {
		if r, size := utf8.DecodeLastRuneInString(cut); r != utf8.RuneError || size != 1 {
			break
		}
		cut = cut[:len(cut)-1]
	}
	return cut
}

// CreateIssueComment posts the comment once per operationKey. Every attempt
// first looks for the key's marker, so an attempt whose response was lost
// (the comment exists, the activity failed) is not repeated by the retry.
func (a *Activities) CreateIssueComment(ctx context.Context, in CreateCommentInput) (CommentResult, error) {
	op := "create comment on " + targetRef(in.Target)
	if in.OperationKey == "" {
		return CommentResult{}, temporal.NewNonRetryableApplicationError(op+": operationKey is required", errTypeInvalidInput, nil)
	}
	// The marker alone would make a blank body look like content to GitHub.
	if strings.TrimSpace(in.Body) == "" {
		return CommentResult{}, temporal.NewNonRetryableApplicationError(op+": body is empty", ErrTypeBadToolCall, nil)
	}
	gh, err := a.githubClient()
	if err != nil {
		return CommentResult{}, err
	}
	existing, err := findMarkedComment(ctx, gh, in.Target, in.OperationKey)
	if err != nil {
		return CommentResult{}, classifyGitHubError(op+": look for its marker", err)
	}
	if existing != nil {
		return CommentResult{CommentID: existing.GetID(), HTMLURL: existing.GetHTMLURL(), AlreadyExisted: true}, nil
	}
	body := in.Body + "\n\n" + OperationMarker(in.OperationKey)
	created, _, err := gh.Issues.CreateComment(ctx, in.Target.Owner, in.Target.Repo, in.Target.PullNumber,
		&github.IssueComment{Body: github.String(body)})
	if err != nil {
		return CommentResult{}, classifyGitHubError(op, err)
	}
	return CommentResult{CommentID: created.GetID(), HTMLURL: created.GetHTMLURL()}, nil
}

// FindCommentByOperationKey reconciles a create whose outcome is unknown: it
// says whether the comment carrying the key's marker exists. A 401, 403 or
// 404 means we cannot look, which is an answer (cannot_tell), not a failure.
func (a *Activities) FindCommentByOperationKey(ctx context.Context, in FindCommentInput) (FindCommentResult, error) {
	op := "find comment for operation " + in.OperationKey + " on " + targetRef(in.Target)
	if in.OperationKey == "" {
		return FindCommentResult{}, temporal.NewNonRetryableApplicationError(op+": operationKey is required", errTypeInvalidInput, nil)
	}
	gh, err := a.githubClient()
	if err != nil {
		return FindCommentResult{}, err
	}
	found, err := findMarkedComment(ctx, gh, in.Target, in.OperationKey)
	if err != nil {
		classified := classifyGitHubError(op, err)
		var appErr *temporal.ApplicationError
		if errors.As(classified, &appErr) && appErr.Type() == ErrTypeGitHubRejected {
			return FindCommentResult{Outcome: ReconcileCannotTell, Reason: appErr.Message()}, nil
		}
		return FindCommentResult{}, classified
	}
	if found == nil {
		return FindCommentResult{Outcome: ReconcileNotCreated}, nil
	}
	return FindCommentResult{Outcome: ReconcileFound, CommentID: found.GetID(), HTMLURL: found.GetHTMLURL()}, nil
}

// findMarkedComment reads every page of the issue's comments and returns the
// first that carries operationKey's marker, or nil once all pages are read.
func findMarkedComment(ctx context.Context, gh *github.Client, t Target, operationKey string) (*github.IssueComment, error) {
	marker := OperationMarker(operationKey)
	opts := &github.IssueListCommentsOptions{ListOptions: github.ListOptions{PerPage: githubPageSize}}
	for {
		page, resp, err := gh.Issues.ListComments(ctx, t.Owner, t.Repo, t.PullNumber, opts)
		if err != nil {
			return nil, fmt.Errorf("list comments (page %d): %w", max(opts.Page, 1), err)
		}
		for _, c := range page {
			if strings.Contains(c.GetBody(), marker) {
				return c, nil
			}
		}
		if resp.NextPage == 0 {
			return nil, nil
		}
		opts.Page = resp.NextPage
	}
}

// githubClient gives each activity call its own go-github client over the
// configured transport. go-github remembers a rate limit in process memory and
// refuses requests locally until it resets by the wall clock; the workflow
// already waited the limit out on a durable timer, and another worker would
// not share that memory anyway, so every call asks GitHub afresh.
func (a *Activities) githubClient() (*github.Client, error) {
	if a.GitHub == nil {
		return nil, fmt.Errorf("no GitHub client configured")
	}
	c := github.NewClient(a.GitHub.Client())
	c.BaseURL = a.GitHub.BaseURL
	c.UploadURL = a.GitHub.UploadURL
	c.UserAgent = a.GitHub.UserAgent
	return c, nil
}

// targetRef names a pull request the way GitHub does: owner/repo#number.
func targetRef(t Target) string {
	return fmt.Sprintf("%s/%s#%d", t.Owner, t.Repo, t.PullNumber)
}
