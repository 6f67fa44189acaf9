package ghtools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/testsuite"

	"github.com/agentrun/agentrun/api"
	ghapi "github.com/agentrun/agentrun/github"
	"github.com/agentrun/agentrun/internal/ghsandbox"
	"github.com/agentrun/agentrun/internal/testkit/standalone"
	"github.com/agentrun/agentrun/tools"
	"github.com/agentrun/agentrun/tools/ghtools"
)

// These drive the GitHub tools the way a run does, against their Action
// directly: the body the model wrote, previewed, and the preview approved
// as it is; the answers are read in the shapes these tests assert (the
// Content the model reads).

// comment is one create_issue_comment call: its target, the body the
// model wrote (which the run approves as previewed) and its operationKey.
type comment struct {
	Target       api.Target
	Body         string
	OperationKey string
}

// reconciled is what reconciling a comment answers.
type reconciled struct {
	Outcome   string
	CommentID int64
	HTMLURL   string
	Reason    string
	Ignored   []api.IgnoredComment
}

// commentCall is the call of c, with the approved body as the run's
// preview of it; a body the tool will not preview is refused as the run
// refuses it, before anything is asked of GitHub.
func commentCall(c comment) (tools.Call, error) {
	args, _ := json.Marshal(map[string]string{"body": c.Body})
	call := tools.Call{Args: args, Target: c.Target, OperationKey: c.OperationKey}
	preview, err := ghtools.NewCreateIssueComment(nil).Preview(call)
	if err != nil {
		return call, err
	}
	call.Approved = preview
	return call, nil
}

// createComment is one attempt of an approved comment.
func createComment(acc *ghapi.Access, c comment) (api.CommentResult, error) {
	call, err := commentCall(c)
	if err != nil {
		return api.CommentResult{}, err
	}
	out, err := ghtools.NewCreateIssueComment(acc).Execute(context.Background(), call)
	if err != nil {
		return api.CommentResult{}, err
	}
	return commentResult(out)
}

// findComment reconciles a comment whose attempt's outcome is unknown; an
// empty Body is a run that lost the approved body.
func findComment(acc *ghapi.Access, c comment) (reconciled, error) {
	args, _ := json.Marshal(map[string]string{"body": c.Body})
	call := tools.Call{Args: args, Target: c.Target, OperationKey: c.OperationKey, Approved: c.Body}
	res, err := ghtools.NewCreateIssueComment(acc).Reconcile(context.Background(), call)
	if err != nil {
		return reconciled{}, err
	}
	r := reconciled{Outcome: res.Outcome, Reason: res.Reason, Ignored: res.Output.Ignored}
	if res.Outcome == api.ReconcileFound {
		c, err := commentResult(res.Output)
		if err != nil {
			return r, err
		}
		r.CommentID, r.HTMLURL = c.CommentID, c.HTMLURL
	}
	return r, nil
}

// createCommentInActivity is createComment run as an activity of env, as
// a worker runs it: the tool logs through its activity, and its error
// passes Temporal's failure converter on its way to the workflow.
func createCommentInActivity(env *testsuite.TestActivityEnvironment, acc *ghapi.Access, c comment) error {
	call, err := commentCall(c)
	if err != nil {
		return err
	}
	env.RegisterActivityWithOptions(func(ctx context.Context) (api.ToolOutput, error) {
		return ghtools.NewCreateIssueComment(acc).Execute(ctx, call)
	}, activity.RegisterOptions{Name: api.ToolCreateIssueComment})
	_, err = env.ExecuteActivity(api.ToolCreateIssueComment)
	return err
}

func commentResult(out api.ToolOutput) (api.CommentResult, error) {
	var res api.CommentResult
	if err := json.Unmarshal(out.Content, &res); err != nil {
		return res, fmt.Errorf("read the comment tool's content %s: %w", out.Content, err)
	}
	res.Ignored = out.Ignored
	return res, nil
}

// readPullRequest and listFiles are a run's reads of the pull request.
func readPullRequest(acc *ghapi.Access, t api.Target) (api.PullRequest, error) {
	var pr api.PullRequest
	return pr, read(ghtools.NewGetPullRequest(acc), t, &pr)
}

func listFiles(acc *ghapi.Access, t api.Target) ([]api.PullRequestFile, error) {
	l, err := listing(acc, t)
	return l.Files, err
}

func listing(acc *ghapi.Access, t api.Target) (api.PullRequestFiles, error) {
	var l api.PullRequestFiles
	return l, read(ghtools.NewListPullRequestFiles(acc), t, &l)
}

func read(tool tools.Tool, t api.Target, into any) error {
	out, err := tool.Execute(context.Background(), tools.Call{Args: json.RawMessage(`{}`), Target: t})
	if err != nil {
		return err
	}
	if err := json.Unmarshal(out.Content, into); err != nil {
		return fmt.Errorf("read %s's content: %w", tool.Spec().Name, err)
	}
	return nil
}

// requireBodyRefused: a comment of body is refused twice before any
// request: its preview, which a person would approve, fails with
// previewWords; and the action, handed the body as approved anyway,
// refuses it for good with executeWords.
func requireBodyRefused(t *testing.T, body, previewWords, executeWords string) {
	t.Helper()
	sb, acc := newSandbox(t, ghsandbox.DefaultFixture())
	c := comment{Target: demoPR, Body: body, OperationKey: "run-1:1"}

	_, err := createComment(acc, c)
	require.ErrorContains(t, err, previewWords)
	args, _ := json.Marshal(map[string]string{"body": body})
	_, err = ghtools.NewCreateIssueComment(acc).Execute(context.Background(),
		tools.Call{Args: args, Target: c.Target, OperationKey: c.OperationKey, Approved: body})

	appErr := standalone.ApplicationError(t, err)
	require.Equal(t, api.ErrTypeBadToolCall, appErr.Type())
	require.True(t, appErr.NonRetryable())
	require.Contains(t, appErr.Message(), executeWords)
	require.Empty(t, sb.Requests())
}
