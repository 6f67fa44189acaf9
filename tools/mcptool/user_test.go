package mcptool_test

import (
	"fmt"
	"io"
	"os"
	"os/user"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/tools"
	"github.com/agentrun/agentrun/tools/mcptool"
)

// identityServer is a stdio server that says its uid and reads files, from
// a copy of the test binary that any user may run (go test builds it in a
// directory only its owner may enter).
func identityServer(t *testing.T, as string) mcptool.Server {
	t.Helper()
	// Not t.TempDir: its parent is the owner's alone.
	dir, err := os.MkdirTemp("", "mcptool-user-")
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	require.NoError(t, os.Chmod(dir, 0o755))
	bin := filepath.Join(dir, "mcp-server")
	src, err := os.Open(os.Args[0])
	require.NoError(t, err)
	defer src.Close()
	dst, err := os.OpenFile(bin, os.O_CREATE|os.O_WRONLY, 0o755)
	require.NoError(t, err)
	_, err = io.Copy(dst, src)
	require.NoError(t, err)
	require.NoError(t, dst.Close())
	return mcptool.Server{Name: "kv", Command: []string{bin}, Env: []string{serverMode + "=identity"}, User: as}
}

func requireRootAndNobody(t *testing.T) *user.User {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("starting a server as another user needs root (or CAP_SETUID and CAP_SETGID)")
	}
	nobody, err := user.Lookup("nobody")
	if err != nil {
		t.Skip("this machine has no user nobody")
	}
	return nobody
}

func TestAStdioServerRunAsAnotherUserCannotReadTheWorkersEnvironOrFiles(t *testing.T) {
	nobody := requireRootAndNobody(t)
	secret := filepath.Join(t.TempDir(), "token")
	require.NoError(t, os.WriteFile(secret, []byte("ghp_worker_secret"), 0o600))
	environ := fmt.Sprintf("/proc/%d/environ", os.Getpid())
	read := func(r mcptool.Registered, path string) error {
		_, err := r.Tool.Execute(callCtx(t), tools.Call{Args: mustJSON(t, map[string]string{"path": path})})
		return err
	}

	// As the worker's own user, the server reads what the worker can.
	_, same := connect(t, identityServer(t, ""))
	assert.Equal(t, fmt.Sprint(os.Getuid()), callText(t, same["kv__uid"]))
	require.NoError(t, read(same["kv__read_file"], environ), "a same-user child reads the worker's environment")

	// As the tools file's user, it cannot.
	_, other := connect(t, identityServer(t, "nobody"))
	assert.Equal(t, nobody.Uid, callText(t, other["kv__uid"]), "the server runs as nobody")
	requireRejected(t, read(other["kv__read_file"], environ))
	requireRejected(t, read(other["kv__read_file"], secret))
}

func TestAStdioServersUserIsCheckedBeforeAnythingStarts(t *testing.T) {
	requireRootAndNobody(t)
	for _, tc := range []struct {
		server mcptool.Server
		want   string
	}{
		{mcptool.Server{Name: "kv", Command: []string{"true"}, User: "no-such-user-7f3a"}, `user "no-such-user-7f3a": no such user`},
		{mcptool.Server{Name: "kv", Command: []string{"true"}, User: "4000000000"}, "no such user"},
		{mcptool.Server{Name: "kv", Command: []string{"true"}, User: "root"}, "the worker's own uid 0"},
		{mcptool.Server{Name: "kv", URL: "http://h", User: "nobody"}, "User is for a stdio server"},
	} {
		_, err := mcptool.Connect(callCtx(t), tc.server)
		require.Error(t, err, "%+v", tc.server)
		assert.Contains(t, err.Error(), tc.want)
	}
}
