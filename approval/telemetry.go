package main

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/agentrun/agentrun/internal/telemetry"
)

// withHTTPMetrics counts the requests of an endpoint by route and code when
// METRICS_ADDR is set. The codec is one of the approval server's routes
// ("/codec/"); a request that matches none counts as route "other".
func withHTTPMetrics(tel *telemetry.Telemetry, next http.Handler) http.Handler {
	if tel.Metrics == nil {
		return next
	}
	return telemetry.HTTPMetrics(tel.Metrics.Handler(), next)
}

// telemetryFlushTimeout bounds the last export of spans at shut-down.
const telemetryFlushTimeout = 5 * time.Second

// closeTelemetry stops /metrics and flushes the last spans once the server
// has stopped.
func closeTelemetry(ctx context.Context, tel *telemetry.Telemetry, logger *slog.Logger) {
	flushCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), telemetryFlushTimeout)
	defer cancel()
	if err := tel.Close(flushCtx); err != nil {
		logger.Warn("telemetry did not close cleanly", "err", err)
	}
}
