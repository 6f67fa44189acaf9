package e2e

import (
	"os/exec"
	"syscall"
)

// dieWithParent has Linux SIGKILL the child when the test binary dies (a
// -timeout panic, a ^C), so that no worker outlives its test and keeps polling.
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
