//go:build !linux

package startup

// MakeNonDumpable does nothing off Linux: there is no /proc/<pid>/environ
// to close, and the supported deployments are Linux containers.
func MakeNonDumpable() error { return nil }
