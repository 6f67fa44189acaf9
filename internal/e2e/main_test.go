package e2e

import (
	"fmt"
	"os"
	"testing"

	"github.com/agentrun/agentrun/internal/testkit"
)

// builder builds the mains once for this test binary, on first use.
var builder *Builder

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "agentrun-e2e-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e: temp dir for the mains:", err)
		os.Exit(1)
	}
	builder = NewBuilder(dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// newStack is the usual stack: the tuned in-memory dev server and the sandbox.
func newStack(t *testing.T) *Stack {
	t.Helper()
	return NewStack(t, builder.Binaries(t), testkit.ServerOptions{})
}
