package temporalclient

import (
	"context"
	"net"
	"testing"

	"github.com/stretchr/testify/require"
)

// closedPortAddress returns a localhost address nothing listens on.
func closedPortAddress(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	return addr
}

func TestDialToClosedPortFailsNamingTheAddress(t *testing.T) {
	addr := closedPortAddress(t)

	_, err := Dial(context.Background(), Config{Address: addr, Namespace: "default"}, nil)

	require.Error(t, err)
	require.Contains(t, err.Error(), "cannot reach Temporal at "+addr+" (namespace default)")
}
