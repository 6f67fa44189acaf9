package telemetry

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/internal/testkit/standalone"
)

func TestNothingSetTurnsMetricsAndTracesOff(t *testing.T) {
	cfg, err := ConfigFromEnv(standalone.Getenv(nil), "agentrun-worker")

	require.NoError(t, err)
	require.Equal(t, Config{ServiceName: "agentrun-worker"}, cfg)
}

func TestTheTracesEndpointWinsOverTheGeneralOne(t *testing.T) {
	cfg, err := ConfigFromEnv(standalone.Getenv(map[string]string{
		"OTEL_EXPORTER_OTLP_ENDPOINT":        "http://collector:4317",
		"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "https://traces.example.com:4317",
		"METRICS_ADDR":                       "0.0.0.0:9464",
	}), "agentrun-worker")

	require.NoError(t, err)
	require.Equal(t, "https://traces.example.com:4317", cfg.OTLPEndpoint)
	require.Equal(t, "0.0.0.0:9464", cfg.MetricsAddr)
}

func TestABadValueNamesItsVariable(t *testing.T) {
	for variable, value := range map[string]string{
		"METRICS_ADDR":                       "9464",
		"OTEL_EXPORTER_OTLP_ENDPOINT":        "collector:4317",
		"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "grpc://collector:4317",
	} {
		t.Run(variable, func(t *testing.T) {
			_, err := ConfigFromEnv(standalone.Getenv(map[string]string{variable: value}), "agentrun-worker")

			require.ErrorContains(t, err, variable+":")
		})
	}
	_, err := ConfigFromEnv(standalone.Getenv(map[string]string{"METRICS_ADDR": ":70000"}), "x")
	require.ErrorContains(t, err, "METRICS_ADDR")
}

func TestTheStarterReadsNoMetricsAddress(t *testing.T) {
	cfg, err := TracesFromEnv(standalone.Getenv(map[string]string{"METRICS_ADDR": "not read"}), "agentrun-starter")

	require.NoError(t, err)
	require.Empty(t, cfg.MetricsAddr)
}
