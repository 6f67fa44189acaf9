// Package telemetry gives a process its metrics and traces: one Prometheus
// registry behind the Temporal SDK's metrics handler (go.temporal.io/sdk/
// contrib/tally), served on METRICS_ADDR at /metrics, and the SDK's
// OpenTelemetry tracing interceptor, exporting over OTLP/gRPC when
// OTEL_EXPORTER_OTLP_ENDPOINT is set.
//
// agentrun's own metrics go through the same handler as the SDK's rather than
// a second Prometheus registry: a workflow may only count through
// workflow.GetMetricsHandler (it skips replays), and that handler wraps the
// client's. One handler then serves both, with the SDK's tags (namespace,
// task_queue, workflow_type) on every workflow- and activity-side series.
package telemetry
