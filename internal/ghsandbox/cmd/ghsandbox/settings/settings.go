// Package settings is the ghsandbox command's table of settings. It sits
// beside the main, in a package of its own, so that internal/composecheck
// can import it.
package settings

import (
	"fmt"
	"net"

	"github.com/agentrun/agentrun/internal/config"
)

// DefaultAddr is where the sandbox listens unless SANDBOX_ADDR says otherwise.
const DefaultAddr = "127.0.0.1:9090"

// Config is what the ghsandbox command reads from its environment.
type Config struct {
	Addr        string
	FixturePath string
	StatePath   string
}

// Settings is every variable the ghsandbox command reads.
func Settings() config.Table[Config] {
	return config.Table[Config]{
		Program: "ghsandbox",
		Settings: []config.Setting[Config]{
			{Name: "SANDBOX_ADDR", Default: DefaultAddr, Description: "the fake GitHub's listen address", Parse: parseAddr},
			{Name: "SANDBOX_FIXTURE", Description: "a fixture JSON file to seed it from; default the embedded acme/widgets",
				Parse: func(c *Config, v string) error { c.FixturePath = v; return nil }},
			{Name: "SANDBOX_STATE", Description: "a file the comments are loaded from at start and saved to after every change; default in memory",
				Parse: func(c *Config, v string) error { c.StatePath = v; return nil }},
		},
	}
}

func parseAddr(c *Config, v string) error {
	if _, _, err := net.SplitHostPort(v); err != nil {
		return fmt.Errorf("%q is not host:port: %w", v, err)
	}
	c.Addr = v
	return nil
}
