//go:build !linux

package e2e

import "os/exec"

// dieWithParent has no portable equivalent; t.Cleanup still kills children.
func dieWithParent(cmd *exec.Cmd) {}
