// Package settings is the approval program's table of settings: every
// variable it reads, read once at start-up into a Program. It sits beside
// the main, in a package of its own, so that internal/composecheck can
// import it.
package settings

import (
	"fmt"
	"slices"

	"github.com/agentrun/agentrun/github"
	"github.com/agentrun/agentrun/internal/approvalsrv"
	"github.com/agentrun/agentrun/internal/config"
	"github.com/agentrun/agentrun/internal/payloadcodec"
	"github.com/agentrun/agentrun/internal/startup"
	"github.com/agentrun/agentrun/internal/telemetry"
	"github.com/agentrun/agentrun/internal/temporalclient"
)

// Program is everything the approval program reads from its environment.
type Program struct {
	Server   approvalsrv.Config
	Temporal temporalclient.Config
	// Codec serves /codec/encode and /codec/decode for the Web UI and the
	// CLI when payloads are encrypted (see docs/operations.md).
	Codec payloadcodec.ServerConfig
	// GitHub reaches the GitHub API for the webhook's write-permission
	// check, with a token or as a GitHub App; the same variables as the
	// worker's.
	GitHub github.Credentials
	// Telemetry is METRICS_ADDR and the OTEL_* variables.
	Telemetry telemetry.Config
}

// ServiceName names the approval server in its spans unless
// OTEL_SERVICE_NAME does.
const ServiceName = "agentrun-approval"

// Settings is every variable the approval program reads.
func Settings() config.Table[Program] {
	return config.Table[Program]{
		Program: "approval",
		Settings: slices.Concat(approvalsrv.ServerSettings(func(p *Program) *approvalsrv.Config { return &p.Server }),
			startup.TemporalSettings[Program](), startup.TelemetrySettings[Program](ServiceName), codecSettings(),
			github.Settings(func(p *Program) *github.Credentials { return &p.GitHub }),
			startup.TaskQueueSettings(func(p *Program) *string { return &p.Server.TaskQueue })),
		Finish: finish,
	}
}

func codecSettings() []config.Setting[Program] {
	return []config.Setting[Program]{
		{Name: "AGENTRUN_CODEC_TOKEN", Secret: true, Description: "serve /codec/encode and /codec/decode to callers with this bearer token; at least 32 bytes; needs AGENTRUN_PAYLOAD_KEYS"},
		{Name: "AGENTRUN_CODEC_CORS_ORIGINS", Description: "comma-separated Web UI origins whose pages may call the codec endpoint; needs AGENTRUN_CODEC_TOKEN"},
	}
}

// finish reads the shared settings and checks the rules across settings.
func finish(p *Program, get func(string) string) error {
	if err := p.Server.Validate(); err != nil {
		return err
	}
	if err := p.GitHub.Validate(); err != nil {
		return err
	}
	var err error
	if p.Temporal, err = temporalclient.ConfigFromEnv(get); err != nil {
		return err
	}
	if p.Codec, err = payloadcodec.ServerConfigFromEnv(get); err != nil {
		return err
	}
	if p.Codec.Enabled() && p.Temporal.Codec == nil {
		return fmt.Errorf("AGENTRUN_CODEC_TOKEN: set, but AGENTRUN_PAYLOAD_KEYS is not: there is nothing to decode")
	}
	p.Telemetry, err = telemetry.ConfigFromEnv(get, ServiceName)
	return err
}
