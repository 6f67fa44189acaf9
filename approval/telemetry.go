package main

import (
	"net/http"

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
