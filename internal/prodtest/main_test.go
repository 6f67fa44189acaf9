package prodtest

import (
	"fmt"
	"os"
	"testing"

	"github.com/agentrun/agentrun/internal/e2e"
)

// builder builds the mains once for this test binary, on first use.
var builder *e2e.Builder

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "agentrun-prodtest-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "prodtest: temp dir for the mains:", err)
		os.Exit(1)
	}
	builder = e2e.NewBuilder(dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
