package main

import (
	"fmt"
	"strings"

	"github.com/agentrun/agentrun/activities"
	"github.com/agentrun/agentrun/internal/approvalsrv"
	"github.com/agentrun/agentrun/internal/temporalclient"
)

// config is everything the approval server reads from its environment.
type config struct {
	server   approvalsrv.Config
	temporal temporalclient.Config
	// gitHubAPIURL and gitHubToken reach the GitHub API for the webhook's
	// write-permission check; the same variables as the worker's.
	gitHubAPIURL string
	gitHubToken  string
}

func loadConfig(getenv func(string) string) (config, error) {
	server, err := approvalsrv.ConfigFromEnv(getenv)
	if err != nil {
		return config{}, err
	}
	temporal, err := temporalclient.ConfigFromEnv(getenv)
	if err != nil {
		return config{}, err
	}
	cfg := config{
		server:       server,
		temporal:     temporal,
		gitHubAPIURL: strings.TrimSpace(getenv("GITHUB_API_URL")),
		gitHubToken:  getenv("GITHUB_TOKEN"),
	}
	if strings.ContainsFunc(cfg.gitHubToken, func(r rune) bool { return r <= ' ' || r == 0x7f }) {
		return config{}, fmt.Errorf("GITHUB_TOKEN: contains whitespace (a pasted newline?)")
	}
	// The client is built again in newServer; building it here names a bad
	// GITHUB_API_URL before anything starts.
	if _, err := activities.NewGitHubClient(cfg.gitHubAPIURL, cfg.gitHubToken); err != nil {
		return config{}, err
	}
	return cfg, nil
}
