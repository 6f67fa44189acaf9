//go:build !linux

package e2e

import (
	"errors"
	"os/exec"
	"os/user"
)

// dieWithParent has no portable equivalent; t.Cleanup still kills children.
func dieWithParent(cmd *exec.Cmd) {}

// runAs switches users on Linux only, where the production-cluster tests run.
func runAs(cmd *exec.Cmd, u *user.User) error {
	if u == nil {
		return nil
	}
	return errors.New("running a process as another user needs Linux")
}
