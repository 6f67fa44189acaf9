package e2e

import (
	"fmt"
	"os/exec"
	"os/user"
	"strconv"
	"syscall"
)

// dieWithParent has Linux SIGKILL the child when the test binary dies (a
// -timeout panic, a ^C), so that no worker outlives its test and keeps polling.
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

// runAs has the child switch to u before it execs. Go sets the parent-death
// signal after the switch, so dieWithParent still holds for it.
func runAs(cmd *exec.Cmd, u *user.User) error {
	if u == nil {
		return nil
	}
	uid, err := strconv.ParseUint(u.Uid, 10, 32)
	if err != nil {
		return fmt.Errorf("uid %q of %s: %w", u.Uid, u.Username, err)
	}
	gid, err := strconv.ParseUint(u.Gid, 10, 32)
	if err != nil {
		return fmt.Errorf("gid %q of %s: %w", u.Gid, u.Username, err)
	}
	cmd.SysProcAttr.Credential = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
	return nil
}
