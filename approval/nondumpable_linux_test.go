package main

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/internal/testkit"
)

// The approval server's own main, re-executed from this test binary as
// another user.
func TestMain(m *testing.M) { testkit.Main(m, main) }

// silentTemporal accepts the server's dial and never answers: the server
// has read every secret by then. It tells when the first dial arrives.
func silentTemporal(t *testing.T) (addr string, dialed <-chan struct{}) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ch := make(chan struct{})
	go func() {
		var conns []net.Conn
		defer func() {
			for _, c := range conns {
				_ = c.Close()
			}
		}()
		for {
			c, err := l.Accept()
			if err != nil {
				return // closed at cleanup
			}
			if conns = append(conns, c); len(conns) == 1 {
				close(ch)
			}
		}
	}()
	t.Cleanup(func() { _ = l.Close() })
	return l.Addr().String(), ch
}

// Any process of the server's user (a sidecar, a debugging shell, a
// compromised dependency's child) read the API secret, the webhook secret
// and the payload keys from /proc/<pid>/environ before the server made
// itself non-dumpable.
func TestProcessOfTheApprovalServersUserCannotReadItsSecrets(t *testing.T) {
	const apiSecret = "approval-api-secret-0123456789abcdef0123"
	const webhookSecret = "webhook-secret-from-a-file-0123456789abcdef"
	const payloadKeys = "k1:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="
	temporal, dialed := silentTemporal(t)
	user := testkit.NewSameUser(t)
	webhookFile := filepath.Join(user.Dir(), "webhook-secret")
	require.NoError(t, os.WriteFile(webhookFile, []byte(webhookSecret+"\n"), 0o400))
	user.Chown(t, webhookFile)
	server := user.Program(t, []string{"TEMPORAL_ADDRESS=" + temporal, "APPROVAL_SECRET=" + apiSecret,
		"GITHUB_WEBHOOK_SECRET_FILE=" + webhookFile, "AGENTRUN_PAYLOAD_KEYS=" + payloadKeys})
	select {
	case <-dialed:
	case <-server.Exited():
		t.Fatalf("the server exited before dialing Temporal:\n%s", server.Output())
	case <-time.After(2 * time.Minute):
		t.Fatal("the server never dialed Temporal")
	}
	// Held still, so that its dial's timeout cannot end it mid-attack.
	require.NoError(t, syscall.Kill(server.Pid(), syscall.SIGSTOP))
	proc := fmt.Sprintf("/proc/%d/", server.Pid())

	status, err := user.Read(t, proc+"status")
	require.NoError(t, err, "the process is there and its public files are readable")
	require.Regexp(t, fmt.Sprintf(`(?m)^Uid:\s+%d\s`, user.Uid()), string(status), "the reader is the server's own user")
	require.ErrorIs(t, user.Trace(t, server.Pid()), testkit.ErrRefused, "ptrace attach")
	for _, file := range []string{"environ", "mem"} {
		content, err := user.Read(t, proc+file)

		require.ErrorIs(t, err, testkit.ErrRefused, file)
		for _, secret := range []string{apiSecret, webhookSecret, payloadKeys} {
			require.NotContains(t, string(content), secret, file)
		}
	}
}
