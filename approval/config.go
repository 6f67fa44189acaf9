package main

import "github.com/agentrun/agentrun/approval/settings"

// loadConfig reads everything the approval server reads from its
// environment; its table is approval/settings, which
// internal/composecheck compares with docker-compose.yml.
func loadConfig(getenv func(string) string) (settings.Program, error) {
	return settings.Settings().Read(getenv)
}
