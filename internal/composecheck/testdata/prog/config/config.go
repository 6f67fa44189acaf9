// Package config is a fixture of LoadProgram's tests.
package config

import "os"

// EnvAddr names the listen address.
const EnvAddr = "TOOL_ADDR"

type Config struct{ Addr, Port string }

// Load is what the main calls.
func Load(getenv func(string) string) Config {
	return Config{Addr: getenv(EnvAddr), Port: orDefault(getenv("TOOL_PORT"), "80")}
}

// String is called implicitly by fmt; methods always count.
func (c Config) String() string {
	return c.Addr + ":" + c.Port + os.Getenv("TOOL_FROM_METHOD")
}

// LoadLegacy is never called by the main.
func LoadLegacy() string { return os.Getenv("TOOL_LEGACY") }

func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}
