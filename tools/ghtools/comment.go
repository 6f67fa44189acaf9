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
		PreviewKind: api.PreviewMarkdown,
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

// Execute implements tools.Action: it posts exactly the approved body,
// once per operationKey (PostComment).
func (c *CreateIssueComment) Execute(ctx context.Context, call tools.Call) (api.ToolOutput, error) {
	return PostComment(ctx, c.acc, call, call.Approved)
}

// Reconcile implements tools.Action: it says whether the comment proving
// the key exists (FindComment).
func (c *CreateIssueComment) Reconcile(ctx context.Context, call tools.Call) (api.ToolReconciliation, error) {
	return FindComment(ctx, c.acc, call, call.Approved)
}

// PostComment posts body on the call's pull request under its
// operationKey's marker, once: every attempt first looks for the comment
// that proves the key (the worker's own, with exactly this body and the
// marker), so an attempt whose response was lost (the comment exists, the
// activity failed) is not repeated by the retry. Look-alikes found on the
// way are reported in Ignored and otherwise disregarded. body is the text a
// person approved; a GitHub action of a user's own module that posts a
// comment calls it from its Execute, as create_issue_comment does.
func PostComment(ctx context.Context, acc Access, call tools.Call, body string) (api.ToolOutput, error) {
	target, key := call.Target, call.OperationKey
	op := "create comment on " + targetRef(target)
	if key == "" {
		return api.ToolOutput{}, temporal.NewNonRetryableApplicationError(op+": operationKey is required", api.ErrTypeInvalidInput, nil)
	}
	// The marker alone would make a blank body look like content to GitHub.
	if strings.TrimSpace(body) == "" {
		return api.ToolOutput{}, temporal.NewNonRetryableApplicationError(op+": body is empty", api.ErrTypeBadToolCall, nil)
	}
	if ghapi.CarriesOperationMarker(body) {
		return api.ToolOutput{}, temporal.NewNonRetryableApplicationError(
			op+": the body holds an agent-operation marker; only the one this activity appends may appear", api.ErrTypeBadToolCall, nil)
	}
	gh, err := acc.ClientFor(op, target)
	if err != nil {
		return api.ToolOutput{}, err
	}
	login, err := acc.BotLogin(ctx, gh, op)
	if err != nil {
		return api.ToolOutput{}, err
	}
	existing, ignored, err := ghapi.FindOperationComment(ctx, gh, target, key, body, login)
	if err != nil {
		return api.ToolOutput{}, ghapi.ClassifyError(op+": look for its marker", err)
	}
	if existing != nil {
		return commentOutput(existing.GetID(), existing.GetHTMLURL(), true, ignored), nil
	}
	created, _, err := gh.Issues.CreateComment(ctx, target.Owner, target.Repo, target.PullNumber,
		&gogithub.IssueComment{Body: gogithub.String(ghapi.MarkedBody(body, key))})
	if err != nil {
		return api.ToolOutput{}, ghapi.ClassifyError(op, err)
	}
	warnIfNotOurs(ctx, created, login)
	return commentOutput(created.GetID(), created.GetHTMLURL(), false, ignored), nil
}

// FindComment says whether the comment PostComment posts for the call's
// operationKey exists (the worker's own, with exactly body and the marker):
// found, not_created once every page was read, or cannot_tell when GitHub
// refuses the look (a 401, 403 or 404 is an answer, not a failure) or the
// search stopped early. A GitHub action of a user's own module calls it
// from its Reconcile.
func FindComment(ctx context.Context, acc Access, call tools.Call, body string) (api.ToolReconciliation, error) {
	target, key := call.Target, call.OperationKey
	op := "find comment for operation " + key + " on " + targetRef(target)
	if key == "" {
		return api.ToolReconciliation{}, temporal.NewNonRetryableApplicationError(op+": operationKey is required", api.ErrTypeInvalidInput, nil)
	}
	// Without the approved body no comment can prove the operation, and
	// answering not_created would invite a second post.
	if strings.TrimSpace(body) == "" {
		return api.ToolReconciliation{}, temporal.NewNonRetryableApplicationError(op+": body (the approved body) is required", api.ErrTypeInvalidInput, nil)
	}
	gh, err := acc.ClientFor(op, target)
	if err != nil {
		return api.ToolReconciliation{}, err
	}
	login, err := acc.BotLogin(ctx, gh, op)
	if err != nil {
		return cannotTellOr(err, nil)
	}
	found, ignored, err := ghapi.FindOperationComment(ctx, gh, target, key, body, login)
	if errors.Is(err, ghapi.ErrProofSearchIncomplete) {
		return api.ToolReconciliation{Outcome: api.ReconcileCannotTell, Reason: op + ": " + err.Error(), Output: commentOutput(0, "", false, ignored)}, nil
	}
	if err != nil {
		return cannotTellOr(ghapi.ClassifyError(op, err), ignored)
	}
	if found == nil {
		return api.ToolReconciliation{Outcome: api.ReconcileNotCreated, Output: commentOutput(0, "", false, ignored)}, nil
	}
	return api.ToolReconciliation{Outcome: api.ReconcileFound, Output: commentOutput(found.GetID(), found.GetHTMLURL(), true, ignored)}, nil
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

// cannotTellOr turns a rejection (we may not look) into the cannot_tell
// answer and returns any other classified error as it is, to be retried.
func cannotTellOr(classified error, ignored []api.IgnoredComment) (api.ToolReconciliation, error) {
	var appErr *temporal.ApplicationError
	if errors.As(classified, &appErr) && appErr.Type() == api.ErrTypeGitHubRejected {
		return api.ToolReconciliation{Outcome: api.ReconcileCannotTell, Reason: appErr.Message(), Output: commentOutput(0, "", false, ignored)}, nil
	}
	return api.ToolReconciliation{}, classified
}
