// Command mcpkv is a stdio MCP server for the end-to-end tests: a key-value
// store kept in the file MCPKV_STATE, so that it outlives the process a
// worker starts and restarts, and that the test can read what each write
// did. With MCPKV_LOSE_FIRST_PUT=1 the first put applies its effect and
// then the process dies before it answers: the worker's call has an
// unknown outcome, which the run must reconcile without a second effect.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentrun/agentrun/internal/e2e/mcpkv/kvstate"
)

type keyIn struct {
	Key string `json:"key"`
}

type putIn struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

type found struct {
	Value string `json:"value"`
	Found bool   `json:"found"`
}

func main() {
	path := os.Getenv("MCPKV_STATE")
	if path == "" {
		fmt.Fprintln(os.Stderr, "mcpkv: MCPKV_STATE is unset")
		os.Exit(2)
	}
	s := store{path: path, loseFirst: os.Getenv("MCPKV_LOSE_FIRST_PUT") == "1"}
	srv := mcp.NewServer(&mcp.Implementation{Name: "mcpkv", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "lookup", Description: "Reads a key.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, s.lookup)
	mcp.AddTool(srv, &mcp.Tool{Name: "put", Description: "Sets a key to a value.",
		Annotations: &mcp.ToolAnnotations{IdempotentHint: true}}, s.put)
	if err := srv.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "mcpkv:", err)
		os.Exit(1)
	}
}

// store is one process's view of the file; the worker runs one process at a
// time per connection, and the tools run one at a time in it.
type store struct {
	path      string
	loseFirst bool
}

func (s store) lookup(_ context.Context, _ *mcp.CallToolRequest, in keyIn) (*mcp.CallToolResult, found, error) {
	st, err := kvstate.Load(s.path)
	if err != nil {
		return nil, found{}, err
	}
	v, ok := st.Values[in.Key]
	return nil, found{Value: v, Found: ok}, nil
}

func (s store) put(_ context.Context, req *mcp.CallToolRequest, in putIn) (*mcp.CallToolResult, any, error) {
	if in.Key == "" {
		return nil, nil, errors.New("put needs a key")
	}
	st, err := kvstate.Load(s.path)
	if err != nil {
		return nil, nil, err
	}
	st.Calls[in.Key]++
	if key, ok := req.Params.Meta["agentrun/operationKey"].(string); ok {
		st.OperationKeys[in.Key] = append(st.OperationKeys[in.Key], key)
	}
	if old, ok := st.Values[in.Key]; !ok || old != in.Value {
		st.Values[in.Key] = in.Value
		st.Applied[in.Key]++
	}
	lose := s.loseFirst && !st.Lost
	st.Lost = st.Lost || lose
	if err := kvstate.Save(s.path, st); err != nil {
		return nil, nil, err
	}
	if lose {
		os.Exit(3) // the effect is made; its answer never leaves
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Key + "=" + in.Value}}}, nil, nil
}
