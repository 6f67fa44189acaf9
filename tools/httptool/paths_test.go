package httptool_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/tools"
	"github.com/agentrun/agentrun/tools/httptool"
)

// hostilePaths each try to leave /v1/orders, or the server, or to hide
// something from the prefix check.
var hostilePaths = []string{
	"",
	"v1/orders",
	"/v1",
	"/admin",
	"/V1/orders",
	"/v1/orders-admin",
	"/v1/ordersx",
	"/v1/orders/../admin",
	"/v1/orders/..",
	"/v1/orders/..;/admin",
	"/v1/orders/./x",
	"/v1/orders/.",
	"/v1/orders//x",
	"//evil.example/v1/orders",
	"///evil.example",
	"/v1/orders/%2e%2e/admin",
	"/v1/orders/%2E%2E/admin",
	"/v1/orders/%252e%252e/admin",
	"/v1/orders/%2f..%2fadmin",
	"/v1/orders%2F..%2Fadmin",
	`/v1/orders\..\admin`,
	`/v1/orders/\\evil.example`,
	"/v1/orders@evil.example",
	"/v1/orders/@evil.example/x",
	"http://evil.example/v1/orders",
	"https:/evil.example/v1/orders",
	"javascript:alert(1)",
	"/v1/orders?admin=1",
	"/v1/orders#x",
	"/v1/orders;jsessionid=1",
	"/v1/orders/\x00",
	"/v1/orders/\r\nHost: evil.example",
	"/v1/orders/\t",
	"/v1/orders/\uff0e\uff0e/admin",
	"/v1/orders/\u2215admin",
}

func TestHostilePathsNeverReachTheServer(t *testing.T) {
	s := newKeyedServer(t)
	tool := newTool(t, s)
	for _, path := range hostilePaths {
		args, _ := json.Marshal(map[string]any{"method": "POST", "path": path, "body": map[string]any{"x": 1}})
		call := callOf(string(args))
		_, err := tool.Preview(call)
		assert.Error(t, err, "Preview of %q", path)
		_, err = tool.Touches(call)
		assert.Error(t, err, "Touches of %q", path)
		assertRefused(t, tool, call, fmt.Sprintf("path %q", path))
	}
	requests, _ := s.counts()
	assert.Zero(t, requests, "no hostile path reached the server")
}

func TestHostileArgumentsNeverReachTheServer(t *testing.T) {
	s := newKeyedServer(t)
	tool := newTool(t, s)
	huge := strings.Repeat("x", httptool.MaxBodyBytes)
	longQuery, _ := json.Marshal(map[string]any{"method": "POST", "path": "/v1/orders", "query": map[string]string{"q": strings.Repeat("y", 9000)}})
	bigBody, _ := json.Marshal(map[string]any{"method": "POST", "path": "/v1/orders", "body": huge})
	for name, args := range map[string]string{
		"method not allowed": `{"method":"DELETE","path":"/v1/orders"}`,
		"method lower case":  `{"method":"post","path":"/v1/orders"}`,
		"no method":          `{"path":"/v1/orders"}`,
		"unknown argument":   `{"method":"POST","path":"/v1/orders","headers":{"Host":"evil.example"}}`,
		"path not a string":  `{"method":"POST","path":["/v1/orders"]}`,
		"query not strings":  `{"method":"POST","path":"/v1/orders","query":{"n":1}}`,
		"empty query name":   `{"method":"POST","path":"/v1/orders","query":{"":"x"}}`,
		"GET with a body":    `{"method":"GET","path":"/v1/orders","body":{"x":1}}`,
		"two values":         `{"method":"POST","path":"/v1/orders"} {}`,
		"not an object":      `["POST","/v1/orders"]`,
		"body too large":     string(bigBody),
		"URL too long":       string(longQuery),
	} {
		call := callOf(args)
		_, err := tool.Preview(call)
		assert.Error(t, err, "Preview: %s", name)
		_, err = tool.Execute(context.Background(), call)
		assert.Equal(t, api.ErrTypeToolRejected, errType(err), "Execute: %s: %v", name, err)
	}

	for name, edit := range map[string]func(c *tools.Call){
		"no operationKey":        func(c *tools.Call) { c.OperationKey = "" },
		"key with a line break":  func(c *tools.Call) { c.OperationKey = "run:1\r\nX-Admin: 1" },
		"key too long":           func(c *tools.Call) { c.OperationKey = strings.Repeat("k", 256) },
		"another request agreed": func(c *tools.Call) { c.Approved = "POST " + s.URL + "/api/v1/orders\n{}" },
	} {
		call := callOf(orderArgs)
		edit(&call)
		assertRefused(t, tool, call, name)
	}
	requests, _ := s.counts()
	assert.Zero(t, requests, "no hostile call reached the server")
}
