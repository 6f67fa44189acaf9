package activities

import (
	"context"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/tools/ghtools"
)

// CreateIssueComment posts the comment once per operationKey
// (ghtools.CreateComment), for runs from before the tool registry.
func (a *Activities) CreateIssueComment(ctx context.Context, in api.CreateCommentInput) (api.CommentResult, error) {
	return ghtools.CreateComment(ctx, NewGitHubAccess(a), in)
}

// FindCommentByOperationKey reconciles a create whose outcome is unknown
// (ghtools.FindComment), for runs from before the tool registry.
func (a *Activities) FindCommentByOperationKey(ctx context.Context, in api.FindCommentInput) (api.FindCommentResult, error) {
	return ghtools.FindComment(ctx, NewGitHubAccess(a), in)
}
