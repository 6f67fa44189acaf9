package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// logTailBytes is how much of a process's log a failed test prints.
const logTailBytes = 16 << 10

// ProcessSpec says how to start a main.
type ProcessSpec struct {
	// Name labels the process in failure output and names its log file.
	Name   string
	Binary string
	Args   []string
	// Env is the whole environment of the process, on top of PATH, HOME and
	// TMPDIR: nothing else leaks in from the test's own environment.
	Env map[string]string
	// User runs the process as that user, which needs a root test; nil
	// runs it as the test. PostgreSQL refuses to run as root.
	User *user.User
}

// Process is a main started by a test. Its stdout and stderr go to a log
// file that is printed when the test fails.
type Process struct {
	name    string
	cmd     *exec.Cmd
	logPath string
	exited  chan struct{}
	waitErr error
}

// StartProcess starts spec; the process is SIGKILLed when the test ends.
func StartProcess(t testing.TB, spec ProcessSpec) *Process {
	t.Helper()
	logPath := filepath.Join(t.TempDir(), spec.Name+".log")
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatalf("create the log of %s: %v", spec.Name, err)
	}
	cmd := exec.Command(spec.Binary, spec.Args...)
	cmd.Env = processEnv(spec.Env)
	dieWithParent(cmd)
	if err := runAs(cmd, spec.User); err != nil {
		logFile.Close()
		t.Fatalf("start %s: %v", spec.Name, err)
	}
	cmd.Stdout = logFile
	cmd.Stderr = logFile
	if err := cmd.Start(); err != nil {
		logFile.Close()
		t.Fatalf("start %s (%s): %v", spec.Name, spec.Binary, err)
	}
	p := &Process{name: spec.Name, cmd: cmd, logPath: logPath, exited: make(chan struct{})}
	go func() {
		p.waitErr = cmd.Wait()
		logFile.Close()
		close(p.exited)
	}()
	t.Cleanup(func() {
		p.Kill()
		if t.Failed() {
			t.Logf("--- %s (pid %d) log, tail:\n%s", p.name, p.Pid(), p.LogTail())
		}
	})
	return p
}

func processEnv(vars map[string]string) []string {
	var env []string
	for _, name := range []string{"PATH", "HOME", "TMPDIR"} {
		if v, ok := os.LookupEnv(name); ok {
			env = append(env, name+"="+v)
		}
	}
	for k, v := range vars {
		env = append(env, k+"="+v)
	}
	return env
}

// Name is the label the process was started with.
func (p *Process) Name() string { return p.name }

// Pid is the process ID.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Kill sends SIGKILL, the crash the fault suite is about, and waits for the
// process to be gone. Killing an exited process does nothing.
func (p *Process) Kill() {
	select {
	case <-p.exited:
		return
	default:
	}
	// An error here means the process already exited; the wait below settles it.
	_ = p.cmd.Process.Kill()
	<-p.exited
}

// Stop sends sig (a server's signal to shut down cleanly) and waits up to
// grace for the process to exit, then SIGKILLs it. It reports whether the
// process exited on its own; stopping an exited process reports true.
func (p *Process) Stop(sig os.Signal, grace time.Duration) bool {
	select {
	case <-p.exited:
		return true
	default:
	}
	// An error here means the process already exited; the wait below settles it.
	_ = p.cmd.Process.Signal(sig)
	timer := time.NewTimer(grace)
	defer timer.Stop()
	select {
	case <-p.exited:
		return true
	case <-timer.C:
		p.Kill()
		return false
	}
}

// Exited reports whether the process has ended, and how.
func (p *Process) Exited() (bool, error) {
	select {
	case <-p.exited:
		return true, p.waitErr
	default:
		return false, nil
	}
}

// LogTail is the end of the process's output.
func (p *Process) LogTail() string {
	data, err := os.ReadFile(p.logPath)
	if err != nil {
		return fmt.Sprintf("(cannot read %s: %v)", p.logPath, err)
	}
	if len(data) > logTailBytes {
		data = data[len(data)-logTailBytes:]
	}
	return string(data)
}

// failIfExited stops the test when a process that should be serving has
// died, with its log, instead of letting a readiness poll time out silently.
func (p *Process) failIfExited(t testing.TB) {
	t.Helper()
	if done, err := p.Exited(); done {
		t.Fatalf("%s exited early (%v); its log:\n%s", p.name, err, p.LogTail())
	}
}

// waitAnswering waits up to 30 seconds for url to answer 200 through c,
// failing at once if the process exits first.
func (p *Process) waitAnswering(t testing.TB, c *http.Client, url, what string) {
	t.Helper()
	Eventually(t, 30*time.Second, what+" to answer", func() (struct{}, bool, string) {
		p.failIfExited(t)
		resp, err := c.Get(url)
		if err != nil {
			return struct{}{}, false, err.Error()
		}
		resp.Body.Close()
		return struct{}{}, resp.StatusCode == http.StatusOK, resp.Status
	})
}

// CommandResult is the outcome of a main run to completion (the starter).
type CommandResult struct {
	Stdout, Stderr string
	ExitCode       int
}

// RunCommand runs a main to completion with the given environment.
func RunCommand(ctx context.Context, binary string, env map[string]string, args ...string) (CommandResult, error) {
	return RunProcess(ctx, ProcessSpec{Binary: binary, Args: args, Env: env})
}

// RunProcess runs spec to completion; its output is returned, not logged.
func RunProcess(ctx context.Context, spec ProcessSpec) (CommandResult, error) {
	binary, args := spec.Binary, spec.Args
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Env = processEnv(spec.Env)
	dieWithParent(cmd)
	if err := runAs(cmd, spec.User); err != nil {
		return CommandResult{}, fmt.Errorf("run %s: %w", filepath.Base(binary), err)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	err := cmd.Run()
	res := CommandResult{Stdout: stdout.String(), Stderr: stderr.String()}
	var exitErr *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exitErr):
		res.ExitCode = exitErr.ExitCode()
	default:
		return res, fmt.Errorf("run %s %s: %w", filepath.Base(binary), strings.Join(args, " "), err)
	}
	return res, nil
}

// Eventually polls probe until it reports done, and fails the test with the
// probe's last description of what it saw when timeout passes first.
func Eventually[T any](t testing.TB, timeout time.Duration, what string, probe func() (value T, done bool, seen string)) T {
	t.Helper()
	const interval = 50 * time.Millisecond
	deadline := time.Now().Add(timeout)
	for {
		value, done, seen := probe()
		if done {
			return value
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s; last seen: %s", timeout, what, seen)
		}
		time.Sleep(interval)
	}
}
