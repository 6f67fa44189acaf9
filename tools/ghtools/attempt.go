package ghtools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	gogithub "github.com/google/go-github/v62/github"
	"github.com/google/jsonschema-go/jsonschema"
	"go.temporal.io/sdk/temporal"

	"github.com/agentrun/agentrun/api"
	ghapi "github.com/agentrun/agentrun/github"
	"github.com/agentrun/agentrun/tools"
)

// argsSchema is a tool's parameters, resolved once: the workflow checks a
// call against them, and the tool checks again with the same schema, since
// an activity trusts no input it did not check itself.
type argsSchema struct {
	raw      json.RawMessage
	resolved *jsonschema.Resolved
}

// mustSchema resolves a tool's own schema; it is a constant of this
// package, so failing is a programming error that the tests catch.
func mustSchema(raw string) argsSchema {
	var s jsonschema.Schema
	if err := json.Unmarshal([]byte(raw), &s); err != nil {
		panic(fmt.Sprintf("ghtools: schema: %v", err))
	}
	resolved, err := s.Resolve(nil)
	if err != nil {
		panic(fmt.Sprintf("ghtools: schema: %v", err))
	}
	return argsSchema{raw: json.RawMessage(raw), resolved: resolved}
}

// decode checks args against the schema and reads them into v, refusing any
// field v does not name.
func (s argsSchema) decode(args json.RawMessage, v any) error {
	var instance any
	if err := json.Unmarshal(args, &instance); err != nil {
		return fmt.Errorf("arguments are not JSON: %w", err)
	}
	if err := s.resolved.Validate(instance); err != nil {
		return fmt.Errorf("arguments: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("arguments: %w", err)
	}
	return nil
}

// refuseMarker refuses a text the model wrote that holds an operation
// marker: only the tool appends one, after approval, and one written by the
// model (or by a prompt injection it read) could pass for another
// operation's proof during reconciliation.
func refuseMarker(field, text string) error {
	if ghapi.CarriesOperationMarker(text) {
		return fmt.Errorf("the %s carries an operation marker (<!-- agent-operation: ... -->); "+
			"the run appends its own marker, so write it without one", field)
	}
	return nil
}

// RequireText refuses a text the model wrote for a GitHub action to post
// under its operation marker when it is blank (the marker alone would look
// like content to GitHub) or already holds a marker (refuseMarker). A tool
// of a user's own module calls it from its Preview, as the built-in ones do.
func RequireText(field, text string) error {
	if strings.TrimSpace(text) == "" {
		return fmt.Errorf("the %s is blank", field)
	}
	return refuseMarker(field, text)
}

// quote renders a text the model wrote on one line, unambiguously, so that
// no text can pass for the preview's own structure. HTML stays readable.
func quote(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

func quoteAll(ss []string) string {
	quoted := make([]string, len(ss))
	for i, s := range ss {
		quoted[i] = quote(s)
	}
	return strings.Join(quoted, ", ")
}

func pullRef(t api.Target) (string, error) {
	if t.Owner == "" || t.Repo == "" || t.PullNumber < 1 {
		return "", fmt.Errorf("the run names no pull request (%q/%q#%d)", t.Owner, t.Repo, t.PullNumber)
	}
	return targetRef(t), nil
}

// markerSteps are the GitHub calls of an action whose proof is its marker,
// over the item T it writes: find looks for the item that proves call's
// operation (with the look-alikes it passed over), create writes the item
// once, and output is what the model reads of it. find and create return
// go-github's errors, unclassified.
type markerSteps[T any] struct {
	op     string
	call   tools.Call
	find   func(ctx context.Context, gh *gogithub.Client, login string) (*T, []api.IgnoredComment, error)
	create func(ctx context.Context, gh *gogithub.Client) (*T, error)
	output func(*T) api.ToolOutput
}

// look is find as an output: found says whether the proof exists, and a
// found proof stands whatever else the search met.
func (s markerSteps[T]) look(ctx context.Context, gh *gogithub.Client, login string) (out api.ToolOutput, found bool, err error) {
	item, ignored, err := s.find(ctx, gh, login)
	if item == nil {
		return api.ToolOutput{Ignored: ignored}, false, err
	}
	out = s.output(item)
	out.Ignored = ignored
	return out, true, nil
}

// execute is every attempt of a marker-proven action: it first looks for
// its proof, so that an attempt whose response was lost is not repeated by
// the next one, and only then creates.
func (s markerSteps[T]) execute(ctx context.Context, acc Access) (api.ToolOutput, error) {
	gh, err := clientFor(acc, s.call, s.op)
	if err != nil {
		// The worker's own rule refuses the repository: no attempt got further.
		return api.ToolOutput{}, err
	}
	login, err := acc.BotLogin(ctx, gh, s.op)
	if err != nil {
		return api.ToolOutput{}, unknownUnlessRateLimited(err)
	}
	existing, found, err := s.look(ctx, gh, login)
	if err != nil {
		return api.ToolOutput{}, unknownUnlessRateLimited(ghapi.ClassifyError(s.op+": look for its marker", err))
	}
	if found {
		existing.AlreadyExisted = true
		return existing, nil
	}
	created, err := s.create(ctx, gh)
	if err != nil {
		return api.ToolOutput{}, writeFailed(s.op, err)
	}
	out := s.output(created)
	out.Ignored = existing.Ignored
	return out, nil
}

// reconcile answers whether the operation's proof exists. When it cannot
// look, it says cannot_tell, never not_created.
func (s markerSteps[T]) reconcile(ctx context.Context, acc Access) (api.ToolReconciliation, error) {
	gh, login, err := clientAndLogin(ctx, acc, s.call, s.op)
	if err != nil {
		return cannotTellIfRefused(err, nil)
	}
	out, found, err := s.look(ctx, gh, login)
	if err != nil {
		return cannotTellIfRefused(ghapi.ClassifyError(s.op, err), out.Ignored)
	}
	if !found {
		return api.ToolReconciliation{Outcome: api.ReconcileNotCreated, Output: out}, nil
	}
	out.AlreadyExisted = true
	return api.ToolReconciliation{Outcome: api.ReconcileFound, Output: out}, nil
}

func clientFor(acc Access, call tools.Call, op string) (*gogithub.Client, error) {
	if acc == nil {
		return nil, tools.Rejected(op+": this registry was built without GitHub access", nil)
	}
	return acc.ClientFor(op, call.Target)
}

func clientAndLogin(ctx context.Context, acc Access, call tools.Call, op string) (*gogithub.Client, string, error) {
	gh, err := clientFor(acc, call, op)
	if err != nil {
		return nil, "", err
	}
	login, err := acc.BotLogin(ctx, gh, op)
	if err != nil {
		return nil, "", err
	}
	return gh, login, nil
}

// rejection is the application error of a proven refusal, GitHub's or the
// tool's.
func rejection(err error) (*temporal.ApplicationError, bool) {
	var appErr *temporal.ApplicationError
	if errors.As(err, &appErr) && (appErr.Type() == api.ErrTypeGitHubRejected || appErr.Type() == api.ErrTypeToolRejected) {
		return appErr, true
	}
	return nil, false
}

// writeFailed classifies the error of an action's one write: a 4xx that
// proves nothing happened is tools.Rejected; a rate limit keeps its type;
// anything else leaves the outcome unknown, for the run to reconcile.
func writeFailed(op string, err error) error {
	classified := ghapi.ClassifyError(op, err)
	if appErr, ok := rejection(classified); ok {
		return tools.Rejected(appErr.Message(), classified)
	}
	return classified
}

// unknownUnlessRateLimited is the error of an attempt that failed before its
// write. Even a refusal then proves nothing: an earlier attempt may have
// made the effect, which is why this one looked first. So it leaves the
// outcome unknown (a plain error: Temporal reads only the outermost type),
// and the run's reconciliation asks again. A rate limit keeps its type, and
// with it the wait GitHub asked for.
func unknownUnlessRateLimited(err error) error {
	if appErr, ok := rejection(err); ok {
		return fmt.Errorf("%s (an earlier attempt's effect may exist): %w", appErr.Message(), err)
	}
	return err
}

// cannotTellIfRefused turns a refusal to let us look, or a look that could not
// finish, into cannot_tell, and returns any other error, to be retried.
func cannotTellIfRefused(err error, ignored []api.IgnoredComment) (api.ToolReconciliation, error) {
	if appErr, ok := rejection(err); ok {
		return cannotTell(appErr.Message(), ignored), nil
	}
	if errors.Is(err, ghapi.ErrProofSearchIncomplete) {
		return cannotTell(err.Error(), ignored), nil
	}
	return api.ToolReconciliation{}, err
}

func cannotTell(reason string, ignored []api.IgnoredComment) api.ToolReconciliation {
	return api.ToolReconciliation{Outcome: api.ReconcileCannotTell, Reason: reason, Output: api.ToolOutput{Ignored: ignored}}
}

// content is what the model reads of an action's result.
func content(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("ghtools: marshal tool content: %v", err))
	}
	return b
}
