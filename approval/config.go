package main

import (
	"fmt"
	"strings"

	"github.com/agentrun/agentrun/github"
	"github.com/agentrun/agentrun/internal/approvalsrv"
	"github.com/agentrun/agentrun/internal/payloadcodec"
	"github.com/agentrun/agentrun/internal/telemetry"
	"github.com/agentrun/agentrun/internal/temporalclient"
)

// config is everything the approval server reads from its environment.
type config struct {
	server   approvalsrv.Config
	temporal temporalclient.Config
	// codec serves /codec/encode and /codec/decode for the Web UI and the
	// CLI when payloads are encrypted (see docs/operations.md).
	codec payloadcodec.ServerConfig
	// gitHubAPIURL and gitHubToken reach the GitHub API for the webhook's
	// write-permission check; the same variables as the worker's.
	gitHubAPIURL string
	gitHubToken  string
	// telemetry is METRICS_ADDR and the OTEL_* variables.
	telemetry telemetry.Config
}

// serviceName names the approval server in its spans unless
// OTEL_SERVICE_NAME does.
const serviceName = "agentrun-approval"

func loadConfig(getenv func(string) string) (config, error) {
	server, err := approvalsrv.ConfigFromEnv(getenv)
	if err != nil {
		return config{}, err
	}
	temporal, err := temporalclient.ConfigFromEnv(getenv)
	if err != nil {
		return config{}, err
	}
	codec, err := payloadcodec.ServerConfigFromEnv(getenv)
	if err != nil {
		return config{}, err
	}
	if codec.Enabled() && temporal.Codec == nil {
		return config{}, fmt.Errorf("AGENTRUN_CODEC_TOKEN: set, but AGENTRUN_PAYLOAD_KEYS is empty: there is nothing to decode")
	}
	tel, err := telemetry.ConfigFromEnv(getenv, serviceName)
	if err != nil {
		return config{}, err
	}
	cfg := config{
		telemetry:    tel,
		server:       server,
		temporal:     temporal,
		codec:        codec,
		gitHubAPIURL: strings.TrimSpace(getenv("GITHUB_API_URL")),
		gitHubToken:  getenv("GITHUB_TOKEN"),
	}
	if strings.ContainsFunc(cfg.gitHubToken, func(r rune) bool { return r <= ' ' || r == 0x7f }) {
		return config{}, fmt.Errorf("GITHUB_TOKEN: contains whitespace (a pasted newline?)")
	}
	// The client is built again in newServer; building it here names a bad
	// GITHUB_API_URL before anything starts.
	if _, err := github.NewClient(cfg.gitHubAPIURL, cfg.gitHubToken); err != nil {
		return config{}, err
	}
	return cfg, nil
}
