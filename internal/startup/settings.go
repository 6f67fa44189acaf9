package startup

import (
	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/config"
	"github.com/agentrun/agentrun/internal/temporalclient"
)

// The settings below are read by readers every program shares
// (temporalclient.ConfigFromEnv, telemetry.ConfigFromEnv), so they have no
// Parse: a program's table lists them and its Finish calls the reader.

// TemporalSettings are the Temporal client's variables: the Temporal CLI's
// own, and the payload keys.
func TemporalSettings[C any]() []config.Setting[C] {
	return []config.Setting[C]{
		{Name: "TEMPORAL_ADDRESS", Default: temporalclient.DefaultAddress, Description: "Temporal frontend host:port (overrides the profile's)"},
		{Name: "TEMPORAL_NAMESPACE", Default: temporalclient.DefaultNamespace, Description: "Temporal namespace"},
		{Name: "TEMPORAL_CONFIG_FILE", Description: "the Temporal CLI's profile file (TOML); default ~/.config/temporalio/temporal.toml if it exists"},
		{Name: "TEMPORAL_PROFILE", Default: "default", Description: "the profile to read from that file"},
		{Name: "TEMPORAL_API_KEY", Secret: true, Description: "API key (Temporal Cloud); turns TLS on"},
		{Name: "TEMPORAL_CLIENT_AUTHORITY", Description: "gRPC :authority, for a proxy that routes on it"},
		{Name: "TEMPORAL_TLS", Description: "true or false (1, 0); on with an API key or a certificate"},
		{Name: "TEMPORAL_TLS_CLIENT_CERT_PATH", Description: "mTLS client certificate, PEM file"},
		{Name: "TEMPORAL_TLS_CLIENT_CERT_DATA", Description: "mTLS client certificate, the PEM itself"},
		{Name: "TEMPORAL_TLS_CLIENT_KEY_PATH", Description: "mTLS client key, PEM file"},
		{Name: "TEMPORAL_TLS_CLIENT_KEY_DATA", Secret: true, Description: "mTLS client key, the PEM itself"},
		{Name: "TEMPORAL_TLS_SERVER_CA_CERT_PATH", Description: "CA of the server's certificate, PEM file; default the system roots"},
		{Name: "TEMPORAL_TLS_SERVER_CA_CERT_DATA", Description: "CA of the server's certificate, the PEM itself"},
		{Name: "TEMPORAL_TLS_SERVER_NAME", Description: "name the server's certificate must carry; default the address's host"},
		{Name: "TEMPORAL_TLS_DISABLE_HOST_VERIFICATION", Default: "false", Description: "true accepts any server certificate; test clusters only"},
		{Name: "AGENTRUN_GRPC_COMPRESSION", Default: "auto", Description: "gzip, none, or auto: none to a loopback address (same machine), gzip otherwise"},
		{Name: "AGENTRUN_PAYLOAD_KEYS", Secret: true, Description: "id:base64key,... (32-byte keys): AES-256-GCM payload encryption; every program needs the same list"},
	}
}

// TracesSettings are the tracing variables; defaultService names the
// program in its spans.
func TracesSettings[C any](defaultService string) []config.Setting[C] {
	return []config.Setting[C]{
		{Name: "OTEL_EXPORTER_OTLP_ENDPOINT", Description: "OTLP/gRPC collector URL (http://otel-collector:4317); unset exports no traces"},
		{Name: "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", Description: "the same for traces only; wins over OTEL_EXPORTER_OTLP_ENDPOINT"},
		{Name: "OTEL_SERVICE_NAME", Default: defaultService, Description: "the spans' service.name"},
	}
}

// TelemetrySettings are the tracing variables and METRICS_ADDR, what a
// long-running program reads.
func TelemetrySettings[C any](defaultService string) []config.Setting[C] {
	return append(TracesSettings[C](defaultService),
		config.Setting[C]{Name: "METRICS_ADDR", Description: "serve Prometheus metrics at GET /metrics on this host:port; unset serves none"})
}

// TaskQueueSettings is AGENT_TASK_QUEUE, which the worker polls and the
// starter starts runs on; field says where a program keeps it.
func TaskQueueSettings[C any](field func(c *C) *string) []config.Setting[C] {
	return []config.Setting[C]{
		{Name: "AGENT_TASK_QUEUE", Default: api.DefaultTaskQueue, Description: "task queue of AgentRun",
			Parse: func(c *C, v string) error { *field(c) = v; return config.NoWhitespace(v) }},
	}
}
