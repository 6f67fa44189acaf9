package main

import (
	"github.com/agentrun/agentrun/internal/approvalsrv"
)

// config is everything the approval server reads from its environment; its
// table is approvalsrv.Settings, which internal/composecheck compares with
// docker-compose.yml.
type config = approvalsrv.Program

func loadConfig(getenv func(string) string) (config, error) {
	return approvalsrv.Settings().Read(getenv)
}
