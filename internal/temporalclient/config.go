// Package temporalclient is the one place that dials Temporal: every process
// (worker, starter, approval server, tests) gets its client here, so that the
// address, namespace, logging and data converter are decided once.
package temporalclient

import (
	"fmt"
	"net"
	"strconv"
)

// Defaults for a local dev server.
const (
	DefaultAddress   = "localhost:7233"
	DefaultNamespace = "default"
)

// Config says where Temporal is.
type Config struct {
	Address   string // host:port of the frontend
	Namespace string
}

// ConfigFromEnv reads TEMPORAL_ADDRESS and TEMPORAL_NAMESPACE, applying the
// defaults for an empty variable. getenv is os.Getenv in a main and a map
// lookup in a test.
func ConfigFromEnv(getenv func(string) string) (Config, error) {
	cfg := Config{Address: DefaultAddress, Namespace: DefaultNamespace}
	if v := getenv("TEMPORAL_ADDRESS"); v != "" {
		cfg.Address = v
	}
	if v := getenv("TEMPORAL_NAMESPACE"); v != "" {
		cfg.Namespace = v
	}
	if err := ValidateAddress(cfg.Address); err != nil {
		return Config{}, fmt.Errorf("TEMPORAL_ADDRESS: %w", err)
	}
	return cfg, nil
}

// ValidateAddress accepts host:port with a non-empty host and a port in 1..65535.
func ValidateAddress(address string) error {
	host, port, err := net.SplitHostPort(address)
	if err != nil {
		return fmt.Errorf("%q is not host:port: %w", address, err)
	}
	if host == "" {
		return fmt.Errorf("%q has no host", address)
	}
	n, err := strconv.Atoi(port)
	if err != nil || n < 1 || n > 65535 {
		return fmt.Errorf("%q has port %q, want a number in 1..65535", address, port)
	}
	return nil
}
