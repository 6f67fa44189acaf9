package telemetry

import (
	"net/http"
	"strconv"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/agentrun/agentrun/internal/httpstatus"
)

// Metric names of the approval server's HTTP middleware, before the handler
// appends _total and _seconds.
const (
	MetricHTTPRequests = "agentrun_http_requests"
	MetricHTTPDuration = "agentrun_http_request_duration"
)

// RouteOther labels requests that matched no route (a 404, or one refused
// before routing), so that scanners cannot grow the label set.
const RouteOther = "other"

// HTTPMetrics counts every request to next by route and status code, and
// times it by route. The route is the ServeMux pattern that matched
// ("GET /runs/{runId}"), never the raw path, so the series are bounded by
// the routes. next must route with a ServeMux that sees this same request
// (no clone between here and the mux), which sets r.Pattern.
func HTTPMetrics(handler client.MetricsHandler, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &httpstatus.Recorder{ResponseWriter: w}
		next.ServeHTTP(rec, r)
		route := r.Pattern
		if route == "" {
			route = RouteOther
		}
		code := rec.Status
		if code == 0 {
			code = http.StatusOK
		}
		tagged := handler.WithTags(map[string]string{"route": route})
		tagged.WithTags(map[string]string{"code": strconv.Itoa(code)}).Counter(MetricHTTPRequests).Inc(1)
		tagged.Timer(MetricHTTPDuration).Record(time.Since(start))
	})
}
