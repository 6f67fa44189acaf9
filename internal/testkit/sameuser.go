// This file attacks a program's process the way another process
// of its user would: a stdio MCP server the worker started, or anything else
// running under the worker's uid. Tests run as root, which reads everything,
// so both the program and the attacker run as nobody then; as any other
// user they run as that user.

package testkit

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"
	"testing"
)

// modeVar tells a re-executed test binary which part to play.
const modeVar = "STARTUPTEST_MODE"

const (
	modeProgram = "program"
	modeRead    = "read"
	modeTrace   = "trace"
)

// Exit codes of the reader, for the test to tell a refusal from a process
// that is already gone.
const (
	readRefused = 3
	readFailed  = 4
)

// Main is a test binary's TestMain: re-executed by Program, it runs the
// program's own main; by Read, it reads one file; otherwise it runs the tests
// (RunTests, which stops the shared server after them).
func Main(m *testing.M, programMain func()) {
	switch os.Getenv(modeVar) {
	case modeProgram:
		programMain()
		os.Exit(0)
	case modeRead:
		os.Exit(read(os.Args[len(os.Args)-1], os.Stdout, os.Stderr))
	case modeTrace:
		os.Exit(trace(os.Args[len(os.Args)-1], os.Stderr))
	}
	RunTests(m)
}

func read(path string, stdout, stderr io.Writer) int {
	b, err := os.ReadFile(path)
	switch {
	case errors.Is(err, os.ErrPermission):
		fmt.Fprintln(stderr, err)
		return readRefused
	case err != nil:
		fmt.Fprintln(stderr, err)
		return readFailed
	}
	_, _ = stdout.Write(b)
	return 0
}

// trace attaches to the process and lets it go again at once: attaching is
// the whole attack, since a tracer reads and writes all of its memory.
func trace(pid string, stderr io.Writer) int {
	n, err := strconv.Atoi(pid)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return readFailed
	}
	// Every ptrace request must come from the thread that attached.
	runtime.LockOSThread()
	err = syscall.PtraceAttach(n)
	switch {
	case errors.Is(err, syscall.EPERM):
		fmt.Fprintln(stderr, "ptrace attach:", err)
		return readRefused
	case err != nil:
		fmt.Fprintln(stderr, "ptrace attach:", err)
		return readFailed
	}
	var status syscall.WaitStatus
	_, _ = syscall.Wait4(n, &status, syscall.WALL, nil)
	_ = syscall.PtraceDetach(n) // a tracer that exits detaches too
	fmt.Fprintln(stderr, "attached to", n)
	return 0
}

// SameUser runs copies of the test binary as one unprivileged user.
type SameUser struct {
	cred *syscall.Credential
	exe  string
	dir  string
}

// NewSameUser copies the test binary where that user may run it: the go
// tool's build directory is its owner's alone.
func NewSameUser(t *testing.T) *SameUser {
	t.Helper()
	u := &SameUser{cred: unprivileged(t)}
	dir, err := os.MkdirTemp("", "startuptest")
	if err != nil {
		t.Fatalf("make a directory for the test binary: %v", err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatalf("open %s to the test's user: %v", dir, err)
	}
	u.dir = dir
	u.exe = filepath.Join(dir, "program.test")
	self, err := os.Executable()
	if err != nil {
		t.Fatalf("find the test binary: %v", err)
	}
	if err := copyExecutable(self, u.exe); err != nil {
		t.Fatalf("copy the test binary: %v", err)
	}
	return u
}

// unprivileged is nobody when the test runs as root, else nil: the test's
// own user, who is no more privileged than a tool server would be.
func unprivileged(t *testing.T) *syscall.Credential {
	t.Helper()
	if os.Geteuid() != 0 {
		return nil
	}
	nobody, err := user.Lookup("nobody")
	if err != nil {
		t.Skipf("running as root with no user nobody to drop to: %v", err)
	}
	uid, err := strconv.ParseUint(nobody.Uid, 10, 32)
	if err != nil {
		t.Fatalf("nobody's uid %q: %v", nobody.Uid, err)
	}
	gid, err := strconv.ParseUint(nobody.Gid, 10, 32)
	if err != nil {
		t.Fatalf("nobody's gid %q: %v", nobody.Gid, err)
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), Groups: []uint32{}}
}

func copyExecutable(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		_ = out.Close()
		return err
	}
	return out.Close()
}

// Process is the program running as the user.
type Process struct {
	cmd    *exec.Cmd
	output *bytes.Buffer
	exited chan struct{}
}

// Pid is the program's process ID.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Exited is closed once the program has exited, for a test that waits on it
// to stop waiting instead of waiting out its bound.
func (p *Process) Exited() <-chan struct{} { return p.exited }

// Output is what the program wrote, once it has exited.
func (p *Process) Output() string {
	<-p.exited
	return p.output.String()
}

// Program is the program's main, run as the user with exactly env (and a
// HOME of its own). It is killed at cleanup.
func (u *SameUser) Program(t *testing.T, env []string) *Process {
	t.Helper()
	cmd := exec.Command(u.exe)
	cmd.Env = append([]string{modeVar + "=" + modeProgram, "HOME=" + u.dir}, env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: u.cred}
	p := &Process{cmd: cmd, output: &bytes.Buffer{}, exited: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = p.output, p.output
	if err := cmd.Start(); err != nil {
		t.Fatalf("start the program as the test's user: %v", err)
	}
	go func() {
		_ = cmd.Wait() // the test asserts on what the program did, not how it ended
		close(p.exited)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill() // already gone when it exited on its own
		if t.Failed() {
			t.Logf("program output:\n%s", p.Output())
		}
		<-p.exited
	})
	return p
}

// Uid is the user's uid, the one its processes run as.
func (u *SameUser) Uid() int {
	if u.cred == nil {
		return os.Geteuid()
	}
	return int(u.cred.Uid)
}

// Chown gives path to the user, as an operator gives a mounted secret to
// the program's user.
func (u *SameUser) Chown(t *testing.T, path string) {
	t.Helper()
	if u.cred == nil {
		return
	}
	if err := os.Chown(path, int(u.cred.Uid), int(u.cred.Gid)); err != nil {
		t.Fatalf("give %s to the test's user: %v", path, err)
	}
}

// Dir is a directory the user may read, for files the program is given.
func (u *SameUser) Dir() string { return u.dir }

// ErrRefused is the kernel refusing the read: the file exists and the user
// may not open it.
var ErrRefused = errors.New("refused")

// Read reads path as the user from a process of its own, as a tool server
// would; an error is ErrRefused when the kernel said no.
func (u *SameUser) Read(t *testing.T, path string) ([]byte, error) {
	t.Helper()
	return u.attack(t, modeRead, path)
}

// Trace tries to ptrace-attach to pid as the user from a process of its
// own; an error is ErrRefused when the kernel said no.
func (u *SameUser) Trace(t *testing.T, pid int) error {
	t.Helper()
	_, err := u.attack(t, modeTrace, strconv.Itoa(pid))
	return err
}

func (u *SameUser) attack(t *testing.T, mode, target string) ([]byte, error) {
	t.Helper()
	cmd := exec.Command(u.exe, target)
	cmd.Env = []string{modeVar + "=" + mode}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: u.cred}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exitErr *exec.ExitError
	switch {
	case errors.As(err, &exitErr) && exitErr.ExitCode() == readRefused:
		return nil, fmt.Errorf("%s %s: %w: %s", mode, target, ErrRefused, stderr.String())
	case err != nil:
		return nil, fmt.Errorf("%s %s: %w: %s", mode, target, err, stderr.String())
	}
	return stdout.Bytes(), nil
}
