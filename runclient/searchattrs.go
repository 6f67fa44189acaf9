package runclient

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/temporal"

	"github.com/agentrun/agentrun/api"
)

// RequiredSearchAttributes are the search attributes runs set, as api
// declares them: the workflow upserts them and Start sets some of them, so a
// namespace without one fails the run. A test checks this list against
// every key api declares.
var requiredSearchAttributes = []temporal.SearchAttributeKey{
	api.SearchAttrStatus,
	api.SearchAttrConversation,
	api.SearchAttrActionIDs,
	api.SearchAttrAgent,
}

// RequiredSearchAttributes is every search attribute a namespace of agentrun
// needs, by name, with its type.
func RequiredSearchAttributes() map[string]enumspb.IndexedValueType {
	out := make(map[string]enumspb.IndexedValueType, len(requiredSearchAttributes))
	for _, key := range requiredSearchAttributes {
		out[key.GetName()] = key.GetValueType()
	}
	return out
}

// ErrSearchAttributesMissing: the namespace lacks search attributes runs
// need, and this process did not (or may not) add them.
var ErrSearchAttributesMissing = errors.New("the namespace lacks agentrun's search attributes")

// MissingSearchAttributesError names the search attributes the namespace
// lacks and the one command line that adds them all. Its message is the
// whole fix, so that the worker, the starter and the approval server's log
// all say the same thing.
type MissingSearchAttributesError struct {
	Address, Namespace string
	// Missing are the names the namespace lacks, sorted.
	Missing []string
	// Err is the server's answer that showed it, or its refusal to add them.
	Err error
}

func (e *MissingSearchAttributesError) Error() string {
	where := "namespace " + cmp.Or(e.Namespace, DefaultNamespace)
	if e.Address != "" {
		where += " on Temporal at " + e.Address
	}
	msg := where + " lacks the search attributes " + strings.Join(e.Missing, ", ")
	if e.Err != nil {
		msg += fmt.Sprintf(" (the server answered: %v)", e.Err)
	}
	return msg + "; add them with: " + AddSearchAttributesCommand(e.Address, e.Namespace)
}

func (e *MissingSearchAttributesError) Is(target error) bool {
	return target == ErrSearchAttributesMissing
}
func (e *MissingSearchAttributesError) Unwrap() error { return e.Err }

// SearchAttributeTypeError: the namespace has one of agentrun's search
// attributes with another type. A type cannot be changed in place, so the
// process refuses to start rather than fail every run.
type SearchAttributeTypeError struct {
	Namespace string
	Name      string
	Want, Got enumspb.IndexedValueType
}

func (e *SearchAttributeTypeError) Error() string {
	return fmt.Sprintf("search attribute %s of namespace %s is a %s, and agentrun needs a %s: remove it "+
		"(temporal operator search-attribute remove --namespace %s --name %s) or use another namespace",
		e.Name, e.Namespace, cliType(e.Got), cliType(e.Want), e.Namespace, e.Name)
}

// AddSearchAttributesCommand is one shell line that adds every search
// attribute agentrun needs. It is one create per attribute, joined by &&:
// the CLI (v1.5) takes several --name but registers only the first, and
// re-adding one that exists with the same type succeeds, so the line is
// right whichever are missing.
func AddSearchAttributesCommand(address, namespace string) string {
	names := slices.Sorted(func(yield func(string) bool) {
		for _, key := range requiredSearchAttributes {
			if !yield(key.GetName()) {
				return
			}
		}
	})
	where := "--namespace " + cmp.Or(namespace, DefaultNamespace)
	if address != "" {
		where = "--address " + address + " " + where
	}
	want := RequiredSearchAttributes()
	creates := make([]string, len(names))
	for i, name := range names {
		creates[i] = fmt.Sprintf("temporal operator search-attribute create %s --name %s --type %s", where, name, cliType(want[name]))
	}
	return strings.Join(creates, " && ")
}

// cliType is the type as `temporal operator search-attribute` spells it,
// which is the enum's own name.
func cliType(t enumspb.IndexedValueType) string { return t.String() }

// searchAttributesReady bounds the wait for attributes just added to be
// listed: the server's own cache takes a moment on a busy machine.
const searchAttributesReady = 30 * time.Second

// SetUpSearchAttributes adds the search attributes the namespace lacks, for
// the worker's start-up. It answers the names it added (none when all were
// there), a *SearchAttributeTypeError for one with the wrong type, and a
// *MissingSearchAttributesError when the server refuses to add them (no
// permission, or a server such as Temporal Cloud whose operator service
// does not add them). A server that cannot be reached is ErrUnavailable.
// A server that will not even list them answers (nil, nil): then nothing is
// known, and the first call that needs a missing one says so.
func (c *Client) SetUpSearchAttributes(ctx context.Context) (added []string, err error) {
	have, err := c.listSearchAttributes(ctx)
	if refusal(err) {
		return nil, nil
	}
	if err != nil {
		return nil, classify(ctx, "", "list the search attributes of namespace "+c.opts.Namespace, err)
	}
	missing, err := c.lacking(have)
	if err != nil || len(missing) == 0 {
		return nil, err
	}
	want := RequiredSearchAttributes()
	add := make(map[string]enumspb.IndexedValueType, len(missing))
	for _, name := range missing {
		add[name] = want[name]
	}
	callCtx, cancel := c.bound(ctx)
	_, err = c.temporal.OperatorService().AddSearchAttributes(callCtx, &operatorservice.AddSearchAttributesRequest{
		Namespace: c.opts.Namespace, SearchAttributes: add,
	})
	cancel()
	if refusal(err) {
		return nil, c.missingError(missing, err)
	}
	if err != nil {
		return nil, classify(ctx, "", "add the search attributes "+strings.Join(missing, ", ")+" to namespace "+c.opts.Namespace, err)
	}
	return missing, c.awaitListed(ctx, missing)
}

// awaitListed waits until the namespace lists every attribute just added,
// so that the worker takes no task its runs would fail.
func (c *Client) awaitListed(ctx context.Context, added []string) error {
	ctx, cancel := context.WithTimeout(ctx, searchAttributesReady)
	defer cancel()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		have, err := c.listSearchAttributes(ctx)
		if err == nil {
			if missing, _ := c.lacking(have); len(missing) == 0 {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the search attributes %s added to namespace %s were not listed within %s: %w",
				strings.Join(added, ", "), c.opts.Namespace, searchAttributesReady, errors.Join(ErrUnavailable, ctx.Err()))
		case <-tick.C:
		}
	}
}

func (c *Client) listSearchAttributes(ctx context.Context) (map[string]enumspb.IndexedValueType, error) {
	ctx, cancel := c.bound(ctx)
	defer cancel()
	listed, err := c.temporal.OperatorService().ListSearchAttributes(ctx, &operatorservice.ListSearchAttributesRequest{Namespace: c.opts.Namespace})
	if err != nil {
		return nil, err
	}
	return listed.GetCustomAttributes(), nil
}

// lacking is the sorted names of required attributes that have lacks, or
// the first one it has with the wrong type.
func (c *Client) lacking(have map[string]enumspb.IndexedValueType) ([]string, error) {
	var missing []string
	for name, want := range RequiredSearchAttributes() {
		got, ok := have[name]
		switch {
		case !ok:
			missing = append(missing, name)
		case got != want:
			return nil, &SearchAttributeTypeError{Namespace: c.opts.Namespace, Name: name, Want: want, Got: got}
		}
	}
	slices.Sort(missing)
	return missing, nil
}

func (c *Client) missingError(missing []string, err error) *MissingSearchAttributesError {
	return &MissingSearchAttributesError{Address: c.opts.Address, Namespace: c.opts.Namespace, Missing: missing, Err: err}
}

// refusal tells an operator call the server will not serve (no permission,
// no such service) from one that failed on the way.
func refusal(err error) bool {
	var denied *serviceerror.PermissionDenied
	var unimplemented *serviceerror.Unimplemented
	return errors.As(err, &denied) || errors.As(err, &unimplemented)
}

// missingSearchAttributes turns a call's InvalidArgument that names one of
// agentrun's search attributes (a start that sets one, a listing that
// filters on one) into a *MissingSearchAttributesError naming every one the
// namespace lacks, so that the first call of a process meeting a bare
// namespace says what to run. The server's wording differs by visibility
// store ("has no mapping defined for search attribute X", "X is not a valid
// search attribute"), so only the name is looked for, and the namespace's
// own list, when it can be read, says which are missing. It answers nil for
// any other error.
func (c *Client) missingSearchAttributes(ctx context.Context, err error) error {
	var invalid *serviceerror.InvalidArgument
	if !errors.As(err, &invalid) {
		return nil
	}
	var named []string
	for _, key := range requiredSearchAttributes {
		if strings.Contains(invalid.Error(), key.GetName()) {
			named = append(named, key.GetName())
		}
	}
	if len(named) == 0 {
		return nil
	}
	// The caller's context may be nearly spent; the list is one quick call.
	listCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	have, listErr := c.listSearchAttributes(listCtx)
	if listErr != nil {
		slices.Sort(named)
		return c.missingError(named, err)
	}
	missing, typeErr := c.lacking(have)
	if typeErr != nil {
		return typeErr
	}
	if len(missing) == 0 {
		// Listed since: the call failed on something else the name is in.
		return nil
	}
	return c.missingError(missing, err)
}
