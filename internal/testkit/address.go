package testkit

import (
	"log/slog"
	"net"
	"os"
	"testing"

	"github.com/agentrun/agentrun/internal/testkit/standalone"
)

// RepoRoot is the repository root (standalone.RepoRoot), for the tests
// that already import the kit.
func RepoRoot() (string, error) { return standalone.RepoRoot() }

// FreeAddress is a loopback host:port nobody listens on right now, for a
// server in another process that takes its listen address as a setting, or
// for a test that needs an address where nothing answers. Its port is one
// no other test process on the machine is handed (see reservePort) and lies
// below the kernel's ephemeral range, so neither a parallel test package nor
// an outgoing connection takes it between choosing and binding it. A server
// in the test's own process should still be handed an open net.Listener
// (Listen).
func FreeAddress(t testing.TB) string {
	t.Helper()
	addr, err := reservePort()
	if err != nil {
		t.Fatalf("reserve a free loopback port: %v", err)
	}
	return addr
}

// QuietLogger keeps the client's reconnect warnings (expected around Restart)
// out of test output; errors still show.
func QuietLogger() *slog.Logger {
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))
}

// Listen is a listener bound now on a free loopback port, closed when the
// test ends: what a server in the test's own process is handed, so that no
// other process can take its port between choosing and binding it.
func Listen(t testing.TB) net.Listener {
	t.Helper()
	l := bindLoopback(t)
	t.Cleanup(func() { l.Close() })
	return l
}

func bindLoopback(t testing.TB) net.Listener {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen on a free loopback port: %v", err)
	}
	return l
}
