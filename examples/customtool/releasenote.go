package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/tools"
	"github.com/agentrun/agentrun/tools/ghtools"
)

// ToolPostReleaseNote is the name the model calls the tool by.
const ToolPostReleaseNote = "post_release_note"

// releaseNote posts one release note on the run's pull request, as a comment
// with a fixed template. It reconciles by marker lookup, as the built-in
// create_issue_comment does: the comment carries the operation's marker, and
// only the worker's own comment with exactly the approved text and that
// marker proves the operation happened.
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

// Execute implements tools.Action: it posts exactly the approved text as
// the built-in create_issue_comment does (ghtools.PostComment), looking for
// its own comment first, so that an attempt after a lost response finds the
// comment instead of posting a second one.
func (r releaseNote) Execute(ctx context.Context, call tools.Call) (api.ToolOutput, error) {
	body, err := r.approvedBody(call)
	if err != nil {
		return api.ToolOutput{}, tools.Rejected("post a release note: "+err.Error(), nil)
	}
	return ghtools.PostComment(ctx, r.acc, call, body)
}

// Reconcile implements tools.Action: found, not_created, or cannot_tell when
// GitHub does not let it look (never not_created then), by the same lookup
// (ghtools.FindComment).
func (r releaseNote) Reconcile(ctx context.Context, call tools.Call) (api.ToolReconciliation, error) {
	body, err := r.approvedBody(call)
	if err != nil {
		return api.ToolReconciliation{Outcome: api.ReconcileCannotTell, Reason: err.Error()}, nil
	}
	return ghtools.FindComment(ctx, r.acc, call, body)
}

// approvedBody is the comment's text, once the call is proven to be the one
// a person approved (its preview is the approved text).
func (r releaseNote) approvedBody(call tools.Call) (string, error) {
	if err := tools.CheckApproved(r, call); err != nil {
		return "", err
	}
	return r.Preview(call)
}

func ref(t api.Target) string { return fmt.Sprintf("%s/%s#%d", t.Owner, t.Repo, t.PullNumber) }
