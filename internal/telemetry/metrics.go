package telemetry

import (
	"io"
	"log/slog"
	"net/http"
	"time"
	"unicode"

	prom "github.com/prometheus/client_golang/prometheus"
	"github.com/uber-go/tally/v4"
	tallyprom "github.com/uber-go/tally/v4/prometheus"
	"go.temporal.io/sdk/client"
	sdktally "go.temporal.io/sdk/contrib/tally"
)

// reportEvery is how often tally hands counts to the Prometheus registry: a
// scrape sees an increment at most this late.
const reportEvery = time.Second

// latencyBuckets (seconds) are every timer's: from a 5 ms HTTP answer or
// activity to the day an approval may wait.
var latencyBuckets = []float64{
	0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30,
	60, 300, 900, 1800, 3600, 4 * 3600, 12 * 3600, 24 * 3600,
}

// Metrics is one process's registry and the Temporal metrics handler that
// feeds it. The SDK's metrics and agentrun's own share it.
type Metrics struct {
	handler client.MetricsHandler
	http    http.Handler
	closer  io.Closer
}

// NewMetrics makes an empty registry. Timers become Prometheus histograms
// (name_seconds_bucket …), so that latencies aggregate across processes.
// A series whose labels differ from its first one's cannot be registered;
// logger says so instead of the reporter's panic.
func NewMetrics(logger *slog.Logger) *Metrics {
	if logger == nil {
		logger = slog.Default()
	}
	registry := prom.NewRegistry()
	reporter := tallyprom.NewReporter(tallyprom.Options{
		Registerer:              registry,
		DefaultTimerType:        tallyprom.HistogramTimerType,
		DefaultHistogramBuckets: latencyBuckets,
		OnRegisterError:         func(err error) { logger.Error("metrics: cannot register a series", "err", err) },
	})
	// Names and label keys as the SDK's Prometheus setup has them; label
	// values keep any printable character, which Prometheus allows, so that
	// a route reads "GET /runs/{runId}" rather than "GET__runs__runId_".
	sanitize := sdktally.PrometheusSanitizeOptions
	sanitize.ValueCharacters = tally.ValidCharacters{Ranges: []tally.SanitizeRange{{' ', unicode.MaxRune}}}
	scope, closer := tally.NewRootScope(tally.ScopeOptions{
		CachedReporter:  reporter,
		Separator:       tallyprom.DefaultSeparator,
		SanitizeOptions: &sanitize,
	}, reportEvery)
	return &Metrics{
		handler: sdktally.NewMetricsHandler(sdktally.NewPrometheusNamingScope(scope)),
		http:    reporter.HTTPHandler(),
		closer:  closer,
	}
}

// Handler is the metrics handler for temporalclient.Config.MetricsHandler.
// Counters get _total appended and timers _seconds.
func (m *Metrics) Handler() client.MetricsHandler { return m.handler }

// ServeHTTP serves the Prometheus text format.
func (m *Metrics) ServeHTTP(w http.ResponseWriter, r *http.Request) { m.http.ServeHTTP(w, r) }

// Close flushes the last counts to the registry.
func (m *Metrics) Close() error { return m.closer.Close() }

// newMetricsServer answers GET /metrics.
func (m *Metrics) newMetricsServer() *http.Server {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", m)
	return &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
}
