package prodstack

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/agentrun/agentrun/internal/e2e"
	"github.com/agentrun/agentrun/internal/testkit"
)

// The role Temporal connects as: docker-compose's POSTGRES_USER and its
// default password.
const (
	postgresRole     = "temporal"
	postgresPassword = "temporal"
)

// postgresStartTimeout covers initdb's first start on a busy machine.
const postgresStartTimeout = time.Minute

// postgresStopGrace is how long a fast shutdown may take before SIGKILL.
const postgresStopGrace = 30 * time.Second

// postgresServer is a PostgreSQL server on a fresh data directory, listening on
// 127.0.0.1 only.
type postgresServer struct {
	Host string
	Port int
	// psql is the client the cluster's usage is read with.
	psql string
	proc *e2e.Process
}

// startPostgres initialises a data directory in a temporary directory of its
// own, starts the server on a free port and waits until it accepts
// connections. The server is shut down, and the directory removed, when t
// ends. durable keeps fsync and synchronous commits on, as a production
// database runs.
func startPostgres(t testing.TB, tl tools, durable bool) *postgresServer {
	t.Helper()
	// Not t.TempDir(): its parents are private to the test's user, and
	// PostgreSQL runs as its own user when the test is root.
	dir, err := os.MkdirTemp("", "agentrun-postgres-")
	if err != nil {
		t.Fatalf("postgres: temp dir: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	pwfile := filepath.Join(dir, "pwfile")
	if err := os.WriteFile(pwfile, []byte(postgresPassword+"\n"), 0o600); err != nil {
		t.Fatalf("postgres: password file: %v", err)
	}
	if err := chownAll(tl.pgUser, dir, pwfile); err != nil {
		t.Fatalf("postgres: %v", err)
	}
	data := filepath.Join(dir, "data")
	ctx, cancel := context.WithTimeout(context.Background(), postgresStartTimeout)
	defer cancel()
	res, err := e2e.RunProcess(ctx, e2e.ProcessSpec{
		Binary: filepath.Join(tl.pgBin, "initdb"),
		// The password is checked over TCP, as on a server of its own.
		Args: []string{"-D", data, "-U", postgresRole, "--pwfile", pwfile, "--auth", "scram-sha-256",
			"-E", "UTF8", "--locale", "C", "--no-sync"},
		User: tl.pgUser,
	})
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("postgres: initdb (exit %d): %v\n%s%s", res.ExitCode, err, res.Stdout, res.Stderr)
	}

	addr := testkit.FreeAddress(t)
	host, portText, _ := net.SplitHostPort(addr)
	port, _ := strconv.Atoi(portText)
	args := []string{"-D", data, "-p", portText, "-c", "listen_addresses=" + host,
		// Its socket in its own directory: /var/run/postgresql may be
		// missing or another server's.
		"-k", dir}
	if !durable {
		// What the tests prove is Temporal's and agentrun's durability,
		// not the disk's: skipping fsync keeps a 2-core machine fast.
		args = append(args, "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off")
	}
	proc := e2e.StartProcess(t, e2e.ProcessSpec{
		Name:   "postgres",
		Binary: filepath.Join(tl.pgBin, "postgres"),
		Args:   args,
		User:   tl.pgUser,
	})
	// A fast shutdown, not the SIGKILL StartProcess ends with: a killed
	// postmaster leaves its shared memory behind.
	t.Cleanup(func() { proc.Stop(syscall.SIGINT, postgresStopGrace) })
	pg := &postgresServer{Host: host, Port: port, psql: filepath.Join(tl.pgBin, "psql"), proc: proc}
	e2e.Eventually(t, postgresStartTimeout, "postgres to accept connections on "+addr, func() (struct{}, bool, string) {
		if done, err := proc.Exited(); done {
			t.Fatalf("postgres exited (%v); its log:\n%s", err, proc.LogTail())
		}
		res, err := e2e.RunCommand(ctx, filepath.Join(tl.pgBin, "pg_isready"), nil, "-h", host, "-p", portText, "-U", postgresRole)
		if err != nil {
			return struct{}{}, false, err.Error()
		}
		return struct{}{}, res.ExitCode == 0, res.Stdout + res.Stderr
	})
	return pg
}

// chownAll hands paths to u; nil (the test is not root) leaves them as they are.
func chownAll(u *user.User, paths ...string) error {
	if u == nil {
		return nil
	}
	uid, err := strconv.Atoi(u.Uid)
	if err != nil {
		return fmt.Errorf("uid %q of %s: %w", u.Uid, u.Username, err)
	}
	gid, err := strconv.Atoi(u.Gid)
	if err != nil {
		return fmt.Errorf("gid %q of %s: %w", u.Gid, u.Username, err)
	}
	for _, p := range paths {
		if err := os.Chown(p, uid, gid); err != nil {
			return fmt.Errorf("hand %s to %s: %w", p, u.Username, err)
		}
	}
	return nil
}
