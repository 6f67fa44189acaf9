package main

import (
	"github.com/agentrun/agentrun/api"
	"slices"

	"github.com/agentrun/agentrun/internal/config"
	"github.com/agentrun/agentrun/internal/startup"
	"github.com/agentrun/agentrun/internal/telemetry"
	"github.com/agentrun/agentrun/internal/temporalclient"
)

// serviceName names the starter in its spans unless OTEL_SERVICE_NAME does.
const serviceName = "agentrun-starter"

// settings is everything the starter reads from its environment, once, as it
// starts; the flags take their defaults from it.
type settings struct {
	temporal temporalclient.Config
	// traces puts the start and the signals into the run's trace; the
	// starter serves no metrics.
	traces    telemetry.Config
	taskQueue string
	user      string
	// callbackAllowed is AGENTRUN_CALLBACK_ALLOWED, which start --callback
	// is checked against (the worker checks again).
	callbackAllowed api.CallbackAllowList
}

// starterSettings is every variable the starter reads.
func starterSettings() config.Table[settings] {
	return config.Table[settings]{
		Program: "starter",
		Settings: slices.Concat(startup.TemporalSettings[settings](), startup.TracesSettings[settings](serviceName),
			startup.TaskQueueSettings(func(s *settings) *string { return &s.taskQueue }),
			[]config.Setting[settings]{{Name: "USER", Default: "cli", Description: "the default of start --user: the login the run acts for",
				Parse: func(s *settings, v string) error { s.user = v; return nil }},
				{Name: api.EnvCallbackAllowed, Description: "comma-separated URL prefixes start --callback may be under, as the worker's; default none",
					Parse: func(s *settings, v string) (err error) {
						s.callbackAllowed, err = api.ParseCallbackAllowList(v)
						return err
					}}}),
		Finish: func(s *settings, get func(string) string) (err error) {
			if s.temporal, err = temporalclient.ConfigFromEnv(get); err != nil {
				return err
			}
			s.traces, err = telemetry.TracesFromEnv(get, serviceName)
			return err
		},
	}
}
