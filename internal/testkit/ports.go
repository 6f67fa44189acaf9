package testkit

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
)

// Ports handed to servers in other processes come from below Linux's default
// ephemeral range (32768-60999), where the kernel never picks the local port
// of an outgoing connection or of a listener bound to port 0. They also fit
// a smallint, as the production cluster's membership table needs
// (internal/prodstack).
const (
	firstReservedPort = 20000
	reservedPorts     = 12000
)

// held keeps each reserved port's lock file open, and so its flock, until
// the test process exits: the kernel drops the lock then, so a crashed
// process leaves nothing stale behind.
var held struct {
	sync.Mutex
	files []*os.File
}

// reservePort picks a port in the reserved range that this machine's other
// test processes have not locked, locks it for this process's lifetime, and
// checks that nothing listens on it.
func reservePort() (string, error) {
	dir := filepath.Join(os.TempDir(), "agentrun-test-ports")
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return "", fmt.Errorf("port lock folder: %w", err)
	}
	for range 200 {
		port := firstReservedPort + rand.IntN(reservedPorts)
		f, err := lockPort(dir, port)
		if errors.Is(err, syscall.EWOULDBLOCK) {
			continue
		}
		if err != nil {
			return "", err
		}
		addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
		l, err := net.Listen("tcp", addr)
		if err != nil {
			f.Close()
			continue
		}
		l.Close()
		held.Lock()
		held.files = append(held.files, f)
		held.Unlock()
		return addr, nil
	}
	return "", errors.New("no free port in 200 tries")
}

func lockPort(dir string, port int) (*os.File, error) {
	f, err := os.OpenFile(filepath.Join(dir, strconv.Itoa(port)), os.O_CREATE|os.O_RDWR, 0o666)
	if err != nil {
		return nil, fmt.Errorf("port lock file: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
