package main

import (
	"github.com/agentrun/agentrun/internal/approvalsrv"
)

// loadConfig reads everything the approval server reads from its
// environment; its table is approvalsrv.Settings, which
// internal/composecheck compares with docker-compose.yml.
func loadConfig(getenv func(string) string) (approvalsrv.Program, error) {
	return approvalsrv.Settings().Read(getenv)
}
