package tickets

import (
	"flag"
	"testing"

	"github.com/agentrun/agentrun/tooltest"
)

var update = flag.Bool("update", false, "rewrite the example's row of docs/tools.md's conformance table")

// keepTable holds the example's row of docs/tools.md's conformance table
// to what the kit saw.
func keepTable(t *testing.T, results []tooltest.Result) {
	table := tooltest.Table([]tooltest.Row{{Action: "`create_ticket` (examples/customtool/tickets)", Results: results}})
	tooltest.KeepTable(t, "../../../docs/tools.md", "example", table,
		"go test -C examples/customtool ./tickets -run TestCreateTicketPassesTheConformanceKit -update", *update)
}
