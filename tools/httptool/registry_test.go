package httptool_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/tools"
)

func TestRegisteredToolAsksFirstAndRefusesBadCallsInCheck(t *testing.T) {
	s := newKeyedServer(t)
	tool := newTool(t, s)
	reg := tools.NewRegistry()
	require.NoError(t, reg.Add(tool, tools.AlwaysAsk))
	agent := tools.Agent{Name: "orders", Tools: []tools.AgentTool{{Name: "http_request"}}}
	require.NoError(t, reg.AddAgent(agent))
	target := api.Target{Owner: "acme", Repo: "shop", PullNumber: 3}

	for name, c := range map[string]struct{ args, why string }{
		"traversal":          {`{"method":"POST","path":"/v1/orders/../admin"}`, `refused: path "/v1/orders/../admin"`},
		"another prefix":     {`{"method":"POST","path":"/v1/refunds"}`, "want one under /v1/orders"},
		"unknown argument":   {`{"method":"POST","path":"/v1/orders","url":"https://evil.example"}`, "additional properties"},
		"method not offered": {`{"method":"DELETE","path":"/v1/orders"}`, "enum"},
		"query not strings":  {`{"method":"POST","path":"/v1/orders","query":{"n":1}}`, "want \"string\""},
		"another pull":       {`{"method":"POST","path":"/v1/orders","pullNumber":4}`, "may only act on acme/shop#3"},
	} {
		_, refusal := reg.Check(agent, api.ToolCall{ID: "c1", Name: "http_request", Arguments: json.RawMessage(c.args)}, target)
		assert.Contains(t, refusal, c.why, name)
	}
	requests, _ := s.counts()
	assert.Zero(t, requests)

	// A good call, as the model may write it: a JSON string, keys in any order.
	quoted, _ := json.Marshal(orderArgs)
	checked, refusal := reg.Check(agent, api.ToolCall{ID: "c2", Name: "http_request", Arguments: quoted}, target)
	require.Empty(t, refusal)
	assert.True(t, checked.Ask, "registered with AlwaysAsk")
	assert.Equal(t, "POST "+s.URL+"/api/v1/orders?currency=eur\n"+`{"amount":12.5,"gift":false,"item":"book <2nd ed>"}`, checked.Preview,
		"Check's canonical arguments preview the same request")

	call := checked.Call
	call.OperationKey, call.Approved = opKey, checked.Preview
	out, err := checked.Action.Execute(context.Background(), call)
	require.NoError(t, err)
	status, _, _ := decodeContent(t, out)
	assert.Equal(t, 201, status)
	_, effects := s.counts()
	assert.Equal(t, 1, effects)
}
