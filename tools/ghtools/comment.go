package ghtools

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	gogithub "github.com/google/go-github/v62/github"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/agentrun/agentrun/api"
	ghapi "github.com/agentrun/agentrun/github"
	"github.com/agentrun/agentrun/tools"
)

// NewCreateIssueComment is create_issue_comment.
func NewCreateIssueComment(acc Access) *CreateIssueComment { return &CreateIssueComment{acc: acc} }

// CreateIssueComment posts a comment on the run's pull request. It reconciles
// by marker lookup: the comment carries the operation's marker, and only our
// own comment with exactly the approved body and that marker proves it.
type CreateIssueComment struct{ acc Access }

type commentArgs struct {
	Body string `json:"body"`
}

// Spec implements tools.Tool.
func (*CreateIssueComment) Spec() api.ToolSpec {
	return api.ToolSpec{
		Name:        api.ToolCreateIssueComment,
		Description: "Post a review comment on the pull request.",
		Parameters:  json.RawMessage(`{"type":"object","properties":{"body":{"type":"string","minLength":1,"maxLength":65000}},"required":["body"],"additionalProperties":false}`),
		SideEffect:  true,
		// The run's stable labels ("Waiting for approval to post a
		// comment") are made of these words.
		Words: api.ToolWords{Noun: "comment", Verb: "post", Past: "posted"},
	}
}

// Preview implements tools.Action: the body is what a person approves.
func (*CreateIssueComment) Preview(call tools.Call) (string, error) {
	var a commentArgs
	if err := call.DecodeArgs(&a); err != nil {
		return "", err
	}
	if err := RequireText("comment body", a.Body); err != nil {
		return "", err
	}
	return a.Body, nil
}

// Touches implements tools.Action.
func (*CreateIssueComment) Touches(call tools.Call) (string, error) {
	return targetRef(call.Target), nil
}

// Execute implements tools.Action: it posts exactly the approved body.
func (c *CreateIssueComment) Execute(ctx context.Context, call tools.Call) (api.ToolOutput, error) {
	res, err := CreateComment(ctx, c.acc, api.CreateCommentInput{Target: call.Target, Body: call.Approved, OperationKey: call.OperationKey})
	if err != nil {
		return api.ToolOutput{}, err
	}
	return commentOutput(res.CommentID, res.HTMLURL, res.AlreadyExisted, res.Ignored), nil
}

// Reconcile implements tools.Action.
func (c *CreateIssueComment) Reconcile(ctx context.Context, call tools.Call) (api.ToolReconciliation, error) {
	res, err := FindComment(ctx, c.acc, api.FindCommentInput{Target: call.Target, OperationKey: call.OperationKey, Body: call.Approved})
	if err != nil {
		return api.ToolReconciliation{}, err
	}
	return api.ToolReconciliation{
		Outcome: res.Outcome, Reason: res.Reason,
		Output: commentOutput(res.CommentID, res.HTMLURL, res.Outcome == api.ReconcileFound, res.Ignored),
	}, nil
}

// commentOutput is a comment's output; its content is the CommentResult the
// model read before the registry, so conversations read the same.
func commentOutput(id int64, url string, existed bool, ignored []api.IgnoredComment) api.ToolOutput {
	out := api.ToolOutput{URL: url, AlreadyExisted: existed, Ignored: ignored}
	if id != 0 {
		out.ExternalID = strconv.FormatInt(id, 10)
	}
	out.Content, _ = json.Marshal(api.CommentResult{CommentID: id, HTMLURL: url, AlreadyExisted: existed})
	out.SafeOutput = out.Content
	return out
}

// CreateComment posts the comment once per operationKey. Every attempt
// first looks for the comment that proves the key (ours, with exactly this
// body and marker), so an attempt whose response was lost (the comment
// exists, the activity failed) is not repeated by the retry. Look-alikes
// found on the way are reported in Ignored and otherwise disregarded.
func CreateComment(ctx context.Context, acc Access, in api.CreateCommentInput) (api.CommentResult, error) {
	op := "create comment on " + targetRef(in.Target)
	if in.OperationKey == "" {
		return api.CommentResult{}, temporal.NewNonRetryableApplicationError(op+": operationKey is required", api.ErrTypeInvalidInput, nil)
	}
	// The marker alone would make a blank body look like content to GitHub.
	if strings.TrimSpace(in.Body) == "" {
		return api.CommentResult{}, temporal.NewNonRetryableApplicationError(op+": body is empty", api.ErrTypeBadToolCall, nil)
	}
	if ghapi.CarriesOperationMarker(in.Body) {
		return api.CommentResult{}, temporal.NewNonRetryableApplicationError(
			op+": the body holds an agent-operation marker; only the one this activity appends may appear", api.ErrTypeBadToolCall, nil)
	}
	gh, err := acc.ClientFor(op, in.Target)
	if err != nil {
		return api.CommentResult{}, err
	}
	login, err := acc.BotLogin(ctx, gh, op)
	if err != nil {
		return api.CommentResult{}, err
	}
	existing, ignored, err := ghapi.FindOperationComment(ctx, gh, in.Target, in.OperationKey, in.Body, login)
	if err != nil {
		return api.CommentResult{}, ghapi.ClassifyError(op+": look for its marker", err)
	}
	if existing != nil {
		return api.CommentResult{CommentID: existing.GetID(), HTMLURL: existing.GetHTMLURL(), AlreadyExisted: true, Ignored: ignored}, nil
	}
	created, _, err := gh.Issues.CreateComment(ctx, in.Target.Owner, in.Target.Repo, in.Target.PullNumber,
		&gogithub.IssueComment{Body: gogithub.String(ghapi.MarkedBody(in.Body, in.OperationKey))})
	if err != nil {
		return api.CommentResult{}, ghapi.ClassifyError(op, err)
	}
	warnIfNotOurs(ctx, created, login)
	return api.CommentResult{CommentID: created.GetID(), HTMLURL: created.GetHTMLURL(), Ignored: ignored}, nil
}

// warnIfNotOurs catches a wrong GITHUB_BOT_LOGIN the first time it matters:
// GitHub says who wrote the comment, and if that is not the identity the
// worker looks for, no later lookup will recognise the comment, so a lost
// response would be followed by a second post.
func warnIfNotOurs(ctx context.Context, created *gogithub.IssueComment, login string) {
	author := created.GetUser().GetLogin()
	if author == "" || api.SameLogin(author, login) || !activity.IsActivity(ctx) {
		return
	}
	activity.GetLogger(ctx).Error("GitHub posted the comment as another login than the worker's identity; "+
		"its comments will not be recognised after a lost response: fix GITHUB_BOT_LOGIN",
		"commentId", created.GetID(), "postedAs", author, "identity", login)
}

// FindComment reconciles a create whose outcome is unknown: it says whether
// the comment proving the key exists (ours, with exactly the approved body
// and the marker). A 401, 403 or 404 means we cannot look, which is an answer
// (cannot_tell), not a failure.
func FindComment(ctx context.Context, acc Access, in api.FindCommentInput) (api.FindCommentResult, error) {
	op := "find comment for operation " + in.OperationKey + " on " + targetRef(in.Target)
	if in.OperationKey == "" {
		return api.FindCommentResult{}, temporal.NewNonRetryableApplicationError(op+": operationKey is required", api.ErrTypeInvalidInput, nil)
	}
	// Without the approved body no comment can prove the operation, and
	// answering not_created would invite a second post.
	if strings.TrimSpace(in.Body) == "" {
		return api.FindCommentResult{}, temporal.NewNonRetryableApplicationError(op+": body (the approved body) is required", api.ErrTypeInvalidInput, nil)
	}
	gh, err := acc.ClientFor(op, in.Target)
	if err != nil {
		return api.FindCommentResult{}, err
	}
	login, err := acc.BotLogin(ctx, gh, op)
	if err != nil {
		return cannotTellOr(err, nil)
	}
	found, ignored, err := ghapi.FindOperationComment(ctx, gh, in.Target, in.OperationKey, in.Body, login)
	if err != nil {
		return cannotTellOr(ghapi.ClassifyError(op, err), ignored)
	}
	if found == nil {
		return api.FindCommentResult{Outcome: api.ReconcileNotCreated, Ignored: ignored}, nil
	}
	return api.FindCommentResult{Outcome: api.ReconcileFound, CommentID: found.GetID(), HTMLURL: found.GetHTMLURL(), Ignored: ignored}, nil
}

// cannotTellOr turns a rejection (we may not look) into the cannot_tell
// answer and returns any other classified error as it is, to be retried.
func cannotTellOr(classified error, ignored []api.IgnoredComment) (api.FindCommentResult, error) {
	var appErr *temporal.ApplicationError
	if errors.As(classified, &appErr) && appErr.Type() == api.ErrTypeGitHubRejected {
		return api.FindCommentResult{Outcome: api.ReconcileCannotTell, Reason: appErr.Message(), Ignored: ignored}, nil
	}
	return api.FindCommentResult{}, classified
}
