package mcptool

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/user"
	"strconv"
	"strings"
	"syscall"
)

// runAs is the credential a stdio server with a User starts under: that
// user's uid and primary group, and no supplementary groups (not even the
// user's own: what the server may reach is what its uid and group may). Nil
// without a User.
func (s Server) runAs() (*syscall.Credential, error) {
	if s.User == "" {
		return nil, nil
	}
	u, err := lookupUser(s.User)
	if err != nil {
		return nil, fmt.Errorf("MCP server %s: user %q: %w", s.Name, s.User, err)
	}
	uid, errUID := strconv.ParseUint(u.Uid, 10, 32)
	gid, errGID := strconv.ParseUint(u.Gid, 10, 32)
	if errUID != nil || errGID != nil {
		return nil, fmt.Errorf("MCP server %s: user %q has no numeric uid and gid", s.Name, s.User)
	}
	if int(uid) == os.Geteuid() {
		return nil, fmt.Errorf("MCP server %s: user %q is the worker's own uid %d, which keeps nothing from the server; name another user or leave user out", s.Name, s.User, uid)
	}
	if !maySwitchUser() {
		return nil, fmt.Errorf("MCP server %s: user %q: the worker (uid %d) may not start a process as another user; run it as root or with CAP_SETUID and CAP_SETGID", s.Name, s.User, os.Geteuid())
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), Groups: []uint32{}}, nil
}

// lookupUser takes a name, or a uid when it is all digits.
func lookupUser(name string) (*user.User, error) {
	lookup := user.Lookup
	if _, err := strconv.ParseUint(name, 10, 32); err == nil {
		lookup = user.LookupId
	}
	u, err := lookup(name)
	var unknownName user.UnknownUserError
	var unknownID user.UnknownUserIdError
	if errors.As(err, &unknownName) || errors.As(err, &unknownID) {
		return nil, errors.New("no such user")
	}
	return u, err
}

// Linux capability bits (include/uapi/linux/capability.h).
const (
	capSetGID = 6
	capSetUID = 7
)

// maySwitchUser says whether the worker may start a process as another user:
// it runs as root, or its effective capabilities hold CAP_SETUID and
// CAP_SETGID (the child's setgroups and setgid need the second).
func maySwitchUser() bool {
	if os.Geteuid() == 0 {
		return true
	}
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return false
	}
	defer f.Close()
	return hasCapabilities(bufio.NewScanner(f), capSetUID, capSetGID)
}

// hasCapabilities reads a /proc/<pid>/status for its CapEff line.
func hasCapabilities(status *bufio.Scanner, caps ...uint) bool {
	for status.Scan() {
		hex, ok := strings.CutPrefix(status.Text(), "CapEff:")
		if !ok {
			continue
		}
		eff, err := strconv.ParseUint(strings.TrimSpace(hex), 16, 64)
		if err != nil {
			return false
		}
		for _, c := range caps {
			if eff&(1<<c) == 0 {
				return false
			}
		}
		return true
	}
	return false
}
