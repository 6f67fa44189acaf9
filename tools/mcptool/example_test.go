package mcptool_test

import (
	"context"
	"fmt"

	"github.com/agentrun/agentrun/tools"
	"github.com/agentrun/agentrun/tools/mcptool"
)

// A worker connects to each MCP server its configuration trusts, once, and
// registers the server's tools before it starts; it closes the Conn when it
// stops. (Not run: it names a server this repository does not ship.)
func Example() {
	ctx := context.TODO()
	conn, err := mcptool.Connect(ctx, mcptool.Server{Name: "files", Command: []string{"my-mcp-files-server", "--root", "/srv"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer conn.Close()
	list, err := conn.Tools()
	if err != nil {
		fmt.Println("not served:", err) // or stop: the worker's choice
	}
	reg := tools.NewRegistry()
	for _, r := range list {
		if err := reg.Add(r.Tool, r.Gate); err != nil {
			fmt.Println(err)
			return
		}
	}
}
