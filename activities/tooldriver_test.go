package activities_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/agentrun/agentrun/activities"
	"github.com/agentrun/agentrun/api"
)

// These drive the GitHub tools the way a run does: through ExecuteTool and
// ReconcileTool, the approved body named by its digest, and answer in the
// shapes the comment's tests read (the Content the model reads).

// commentCall is the input a run's create_issue_comment step sends.
func commentCall(in api.CreateCommentInput) api.ToolInput {
	args, _ := json.Marshal(map[string]string{"body": in.Body})
	return api.NewToolInput(api.ToolCreateIssueComment, args, in.Target, in.OperationKey, in.Body)
}

// createComment is one attempt of an approved comment.
func createComment(acts *activities.Activities, in api.CreateCommentInput) (api.CommentResult, error) {
	out, err := acts.ExecuteTool(context.Background(), commentCall(in))
	if err != nil {
		return api.CommentResult{}, err
	}
	return commentResult(out)
}

// findComment reconciles a comment whose attempt's outcome is unknown; an
// empty Body is a run that lost the approved body.
func findComment(acts *activities.Activities, in api.FindCommentInput) (api.FindCommentResult, error) {
	res, err := acts.ReconcileTool(context.Background(), commentCall(api.CreateCommentInput{Target: in.Target, Body: in.Body, OperationKey: in.OperationKey}))
	if err != nil {
		return api.FindCommentResult{}, err
	}
	found := api.FindCommentResult{Outcome: res.Outcome, Reason: res.Reason, Ignored: res.Output.Ignored}
	if res.Outcome == api.ReconcileFound {
		c, err := commentResult(res.Output)
		if err != nil {
			return found, err
		}
		found.CommentID, found.HTMLURL = c.CommentID, c.HTMLURL
	}
	return found, nil
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
func readPullRequest(acts *activities.Activities, t api.Target) (api.PullRequest, error) {
	var pr api.PullRequest
	return pr, read(acts, api.ToolGetPullRequest, t, &pr)
}

func listFiles(acts *activities.Activities, t api.Target) ([]api.PullRequestFile, error) {
	var files []api.PullRequestFile
	return files, read(acts, api.ToolListPullRequestFiles, t, &files)
}

func read(acts *activities.Activities, tool string, t api.Target, into any) error {
	out, err := acts.ExecuteTool(context.Background(), api.ToolInput{Tool: tool, Args: json.RawMessage(`{}`), Target: t})
	if err != nil {
		return err
	}
	if err := json.Unmarshal(out.Content, into); err != nil {
		return fmt.Errorf("read %s's content: %w", tool, err)
	}
	return nil
}
