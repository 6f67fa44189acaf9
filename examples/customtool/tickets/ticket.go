// Package tickets is create_ticket, an action on a ticket service that
// reconciles by natural key: the ticket stores the call's operationKey as its
// external_id, and the service finds tickets by it.
package tickets

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/tools"
	"github.com/agentrun/agentrun/tools/toolhttp"
)

// Tool creates tickets at its BaseURL (POST /tickets, GET /tickets?external_id=K).
type Tool struct{ toolhttp.Client }

func (Tool) Spec() api.ToolSpec {
	return api.ToolSpec{Name: "create_ticket", Description: "Open a ticket in the team's ticket service.", SideEffect: true,
		Parameters: json.RawMessage(`{"type":"object","additionalProperties":false,"required":["title","body"],"properties":{
			"title":{"type":"string","minLength":1,"maxLength":120},"body":{"type":"string","minLength":1,"maxLength":4000}}}`)}
}

// Preview quotes both arguments, so that no text passes for the preview's own words.
func (Tool) Preview(call tools.Call) (string, error) {
	t, err := asked(call)
	return fmt.Sprintf("Create ticket %q with body %q", t.Title, t.Body), err
}

// asked is the ticket the call asks for, under its operationKey.
func asked(call tools.Call) (ticket, error) {
	t := ticket{ExternalID: call.OperationKey}
	return t, json.Unmarshal(call.Args, &t)
}

func (t Tool) Touches(tools.Call) (string, error) { return t.BaseURL + "/tickets", nil }

func (t Tool) Execute(ctx context.Context, call tools.Call) (api.ToolOutput, error) {
	if err := tools.CheckApproved(t, call); err != nil {
		return api.ToolOutput{}, tools.Rejected("create_ticket: "+err.Error(), err)
	}
	// Every attempt looks first: an earlier one may have made the ticket.
	if found, err := t.find(ctx, call); err != nil || found != nil {
		return output(found, true), err
	}
	want, _ := asked(call) // Preview has read them
	var made ticket
	if err := t.Do(ctx, http.MethodPost, "/tickets", &want, &made); err != nil {
		// A refusal proves nothing was made; any other error (a 409 is an
		// earlier attempt's ticket) is unknown, and the run reconciles.
		return api.ToolOutput{}, toolhttp.Classify("create_ticket", err)
	}
	return output(&made, false), nil
}

func (t Tool) Reconcile(ctx context.Context, call tools.Call) (api.ToolReconciliation, error) {
	found, err := t.find(ctx, call)
	switch {
	case err != nil:
		return toolhttp.CannotTell("create_ticket", err) // a refused look, or retried
	case found == nil:
		return api.ToolReconciliation{Outcome: api.ReconcileNotCreated}, nil
	}
	return api.ToolReconciliation{Outcome: api.ReconcileFound, Output: output(found, true)}, nil
}

// find is the call's ticket, or nil once the service said it has none. A
// ticket under the key with other text proves nothing.
func (t Tool) find(ctx context.Context, call tools.Call) (*ticket, error) {
	var found []ticket
	if err := t.Do(ctx, http.MethodGet, "/tickets?external_id="+url.QueryEscape(call.OperationKey), nil, &found); err != nil {
		return nil, fmt.Errorf("find the ticket of %s: %w", call.OperationKey, err)
	}
	want, _ := asked(call)
	for _, f := range found {
		if f.ExternalID != call.OperationKey {
			continue // a service that ignored the filter proves nothing
		} else if f.Title != want.Title || f.Body != want.Body {
			return nil, fmt.Errorf("ticket %s carries %s with other text", f.ID, call.OperationKey)
		}
		return &f, nil
	}
	return nil, nil
}
