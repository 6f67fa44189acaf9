package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	gogithub "github.com/google/go-github/v62/github"
	"go.temporal.io/sdk/temporal"

	"github.com/agentrun/agentrun/api"
	ghapi "github.com/agentrun/agentrun/github"
	"github.com/agentrun/agentrun/tools"
	"github.com/agentrun/agentrun/tools/ghtools"
)

// ToolPostReleaseNote is the name the model calls the tool by.
const ToolPostReleaseNote = "post_release_note"

// releaseNote posts one release note on the run's pull request, as a comment
// with a fixed template. It reconciles by marker lookup: the comment carries
// the operation's marker, and only the worker's own comment with exactly the
// approved text and that marker proves the operation happened.
type releaseNote struct{ acc ghtools.Access }

type releaseNoteArgs struct {
	Kind string `json:"kind"`
	Note string `json:"note"`
}

// Spec implements tools.Tool. The schema is the first check: the workflow
// refuses a call that does not match it before anything else runs.
func (releaseNote) Spec() api.ToolSpec {
	return api.ToolSpec{
		Name:        ToolPostReleaseNote,
		Description: "Post the pull request's release note as a comment.",
		Parameters: json.RawMessage(`{"type":"object","additionalProperties":false,"required":["kind","note"],"properties":{
			"kind":{"type":"string","enum":["feature","fix","docs","chore"]},
			"note":{"type":"string","minLength":1,"maxLength":300,"pattern":"^[^\\r\\n]*$"}}}`),
		SideEffect: true,
		Words:      api.ToolWords{Noun: "release note", Verb: "post", Past: "posted"},
	}
}

// Preview implements tools.Action: it is the comment's exact text, rendering
// every argument, so what a person approves is what GitHub shows. It runs in
// the workflow: no clock, no I/O, only the call.
func (releaseNote) Preview(call tools.Call) (string, error) {
	var a releaseNoteArgs
	if err := call.DecodeArgs(&a); err != nil {
		return "", err
	}
	// The built-in GitHub actions' rule: no blank note, and no marker in it,
	// which could pass for another operation's proof.
	if err := ghtools.RequireText("note", a.Note); err != nil {
		return "", err
	}
	return fmt.Sprintf("**Release note** (%s) for %s\n\n> %s", a.Kind, ref(call.Target), strings.TrimSpace(a.Note)), nil
}

// Touches implements tools.Action.
func (releaseNote) Touches(call tools.Call) (string, error) { return ref(call.Target), nil }

// Execute implements tools.Action. It posts exactly the approved text, and
// looks for its own comment first, so that an attempt after a lost response
// finds the comment instead of posting a second one.
func (r releaseNote) Execute(ctx context.Context, call tools.Call) (api.ToolOutput, error) {
	op := "post a release note on " + ref(call.Target)
	body, err := r.approvedBody(call)
	if err != nil {
		return api.ToolOutput{}, tools.Rejected(op+": "+err.Error(), nil)
	}
	gh, err := r.acc.ClientFor(op, call.Target)
	if err != nil {
		return api.ToolOutput{}, err
	}
	login, err := r.acc.BotLogin(ctx, gh, op)
	if err != nil {
		return api.ToolOutput{}, lookFailed(err)
	}
	found, _, err := ghapi.FindOperationComment(ctx, gh, call.Target, call.OperationKey, body, login)
	if err != nil {
		return api.ToolOutput{}, lookFailed(ghapi.ClassifyError(op+": look for its marker", err))
	}
	if found != nil {
		return noteOutput(found, true), nil
	}
	t := call.Target
	posted, _, err := gh.Issues.CreateComment(ctx, t.Owner, t.Repo, t.PullNumber,
		&gogithub.IssueComment{Body: gogithub.String(ghapi.MarkedBody(body, call.OperationKey))})
	if err != nil {
		// A 4xx proves nothing was posted (the step fails); anything else
		// leaves the outcome unknown, and the run reconciles.
		return api.ToolOutput{}, ghapi.ClassifyError(op, err)
	}
	return noteOutput(posted, false), nil
}

// Reconcile implements tools.Action: found, not_created, or cannot_tell when
// GitHub does not let it look (never not_created then).
func (r releaseNote) Reconcile(ctx context.Context, call tools.Call) (api.ToolReconciliation, error) {
	op := "find the release note of operation " + call.OperationKey
	body, err := r.approvedBody(call)
	if err != nil {
		return api.ToolReconciliation{Outcome: api.ReconcileCannotTell, Reason: err.Error()}, nil
	}
	gh, err := r.acc.ClientFor(op, call.Target)
	if err != nil {
		return cannotTellIfRefused(err)
	}
	login, err := r.acc.BotLogin(ctx, gh, op)
	if err != nil {
		return cannotTellIfRefused(err)
	}
	found, _, err := ghapi.FindOperationComment(ctx, gh, call.Target, call.OperationKey, body, login)
	switch {
	case errors.Is(err, ghapi.ErrProofSearchIncomplete):
		return api.ToolReconciliation{Outcome: api.ReconcileCannotTell, Reason: err.Error()}, nil
	case err != nil:
		return cannotTellIfRefused(ghapi.ClassifyError(op, err))
	case found == nil:
		return api.ToolReconciliation{Outcome: api.ReconcileNotCreated}, nil
	}
	return api.ToolReconciliation{Outcome: api.ReconcileFound, Output: noteOutput(found, true)}, nil
}

// approvedBody is the comment's text, once the call is proven to be the one
// a person approved (its preview is the approved text).
func (r releaseNote) approvedBody(call tools.Call) (string, error) {
	body, err := r.Preview(call)
	switch {
	case err != nil:
		return "", err
	case call.OperationKey == "":
		return "", errors.New("the call has no operationKey")
	case call.Approved != "" && call.Approved != body:
		return "", errors.New("the call's arguments are not the ones approved")
	}
	return body, nil
}

// lookFailed is the error of an attempt that failed before its write: even
// a refusal proves nothing then, since an earlier attempt may have posted,
// so it becomes a plain error (the run reconciles). A rate limit keeps its
// type and with it the wait GitHub asked for.
func lookFailed(err error) error {
	if appErr, ok := refusal(err); ok {
		return fmt.Errorf("%s (an earlier attempt may have posted): %w", appErr.Message(), err)
	}
	return err
}

func cannotTellIfRefused(err error) (api.ToolReconciliation, error) {
	if appErr, ok := refusal(err); ok {
		return api.ToolReconciliation{Outcome: api.ReconcileCannotTell, Reason: appErr.Message()}, nil
	}
	return api.ToolReconciliation{}, err
}

func refusal(err error) (*temporal.ApplicationError, bool) {
	var appErr *temporal.ApplicationError
	ok := errors.As(err, &appErr) && (appErr.Type() == api.ErrTypeGitHubRejected || appErr.Type() == api.ErrTypeToolRejected)
	return appErr, ok
}

// noteOutput names the comment; the model reads its ID and link.
func noteOutput(c *gogithub.IssueComment, existed bool) api.ToolOutput {
	content, _ := json.Marshal(map[string]any{"commentId": c.GetID(), "htmlUrl": c.GetHTMLURL(), "alreadyExisted": existed})
	return api.ToolOutput{Content: content, ExternalID: strconv.FormatInt(c.GetID(), 10), URL: c.GetHTMLURL(), AlreadyExisted: existed}
}

func ref(t api.Target) string { return fmt.Sprintf("%s/%s#%d", t.Owner, t.Repo, t.PullNumber) }
