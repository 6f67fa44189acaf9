package activities

import (
	"context"
	"errors"
)

// Placeholder signatures; the GitHub tools are implemented over go-github.

func (a *Activities) GetPullRequest(ctx context.Context, t Target) (PullRequest, error) {
	return PullRequest{}, errors.New("not implemented")
}

func (a *Activities) ListPullRequestFiles(ctx context.Context, t Target) ([]PullRequestFile, error) {
	return nil, errors.New("not implemented")
}

func (a *Activities) CreateIssueComment(ctx context.Context, in CreateCommentInput) (CommentResult, error) {
	return CommentResult{}, errors.New("not implemented")
}

func (a *Activities) FindCommentByOperationKey(ctx context.Context, in FindCommentInput) (FindCommentResult, error) {
	return FindCommentResult{}, errors.New("not implemented")
}
