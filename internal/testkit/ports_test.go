package testkit

import (
	"net"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestFreeAddressesAreDistinctAndBelowTheEphemeralRange(t *testing.T) {
	seen := map[string]bool{}
	for range 50 {
		addr := FreeAddress(t)
		require.False(t, seen[addr], "handed out twice: %s", addr)
		seen[addr] = true
		_, port, err := net.SplitHostPort(addr)
		require.NoError(t, err)
		n, err := strconv.Atoi(port)
		require.NoError(t, err)
		require.Less(t, n, 32768, "the kernel may hand this port to an outgoing connection")
		require.GreaterOrEqual(t, n, firstReservedPort)
	}
}

func TestAPortAnotherProcessLockedIsNotHandedOut(t *testing.T) {
	addr := FreeAddress(t)
	_, port, _ := net.SplitHostPort(addr)
	n, _ := strconv.Atoi(port)

	// A second open file description conflicts with our own flock exactly
	// as another process's would.
	_, err := lockPort(filepath.Join(os.TempDir(), "agentrun-test-ports"), n)

	require.Error(t, err, "the reservation holds for the process's lifetime")
}
