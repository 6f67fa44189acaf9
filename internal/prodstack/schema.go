package prodstack

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/agentrun/agentrun/internal/e2e"
)

// schemaTimeout covers creating both databases and applying every versioned
// schema step on a busy machine.
const schemaTimeout = 3 * time.Minute

// setupSchema does what auto-setup does before it starts the server, with
// the server's own temporal-sql-tool: for the default store and for
// visibility, create the database, set up the base schema, then apply every
// versioned step of the module's schema directory.
func setupSchema(t testing.TB, tl tools, pg *postgresServer) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), schemaTimeout)
	defer cancel()
	for _, store := range stores {
		base := []string{"--plugin", SQLPlugin, "--ep", pg.Host, "-p", strconv.Itoa(pg.Port),
			"-u", postgresRole, "--pw", postgresPassword, "--db", store.Database}
		steps := [][]string{
			{"create-database"},
			{"setup-schema", "-v", "0.0"},
			{"update-schema", "-d", filepath.Join(tl.schemaDir, store.Schema, "versioned")},
		}
		for _, step := range steps {
			args := append(append([]string{}, base...), step...)
			res, err := e2e.RunCommand(ctx, tl.sqlTool, nil, args...)
			if err == nil && res.ExitCode != 0 {
				err = fmt.Errorf("exit %d", res.ExitCode)
			}
			if err != nil {
				t.Fatalf("temporal-sql-tool %s on %s: %v\n%s%s", step[0], store.Database, err, res.Stdout, res.Stderr)
			}
		}
	}
}
