package startup

import (
	"fmt"
	"syscall"
)

// MakeNonDumpable makes the kernel refuse this process's memory and its
// copy of the environment to every process without CAP_SYS_PTRACE, the
// same user's included: /proc/<pid>/environ and /proc/<pid>/mem become
// root's, and ptrace is refused. A stdio MCP server runs as the worker's
// user, and the environment as exec'd holds every secret the worker was
// given. It also turns off core dumps, which would hold them too. A child
// is dumpable again after its exec: the flag guards this process only.
func MakeNonDumpable() error {
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, syscall.PR_SET_DUMPABLE, 0, 0); errno != 0 {
		return fmt.Errorf("prctl(PR_SET_DUMPABLE, 0): %w", errno)
	}
	return nil
}
