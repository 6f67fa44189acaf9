package telemetry_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/telemetry"
	"github.com/agentrun/agentrun/internal/testkit"
)

// dashboardFile is the Grafana dashboard docs/operations.md points to.
const dashboardFile = "deploy/grafana/agentrun-dashboard.json"

// dashboardMetrics parses the dashboard and returns every metric its queries
// name, without the _bucket/_sum/_count of a histogram's series.
func dashboardMetrics(t *testing.T) []string {
	t.Helper()
	root, err := testkit.RepoRoot()
	require.NoError(t, err)
	data, err := os.ReadFile(filepath.Join(root, dashboardFile))
	require.NoError(t, err)
	var dashboard struct {
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	require.NoError(t, json.Unmarshal(data, &dashboard), "%s is not valid JSON", dashboardFile)
	require.NotEmpty(t, dashboard.Panels)
	metric := regexp.MustCompile(`\b(?:agentrun|temporal)_[a-z0-9_]+`)
	var names []string
	for _, p := range dashboard.Panels {
		require.NotEmpty(t, p.Targets, "panel %q has no query", p.Title)
		for _, target := range p.Targets {
			for _, name := range metric.FindAllString(target.Expr, -1) {
				for _, suffix := range []string{"_bucket", "_sum", "_count"} {
					name = strings.TrimSuffix(name, suffix)
				}
				if !slices.Contains(names, name) {
					names = append(names, name)
				}
			}
		}
	}
	return names
}

// notInAnApprovedRun are counted only when an approval expires or a post's
// outcome is unknown, which the approved run of the test does not do; the
// workflow's tests cover where they are counted.
var notInAnApprovedRun = []string{
	api.MetricApprovalsExpired + "_total",
	api.MetricReconciliations + "_total",
}

// requireDashboardMetricsIn checks every metric of the dashboard against a
// scrape of a worker after an approved run, with the approval server's HTTP
// middleware counting through the same registry.
func requireDashboardMetricsIn(t *testing.T, tel *telemetry.Telemetry, url string) {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(http.ResponseWriter, *http.Request) {})
	srv := httptest.NewServer(telemetry.HTTPMetrics(tel.Metrics.Handler(), mux))
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/healthz")
	require.NoError(t, err)
	resp.Body.Close()

	f := scrapeUntil(t, url, func(f telemetry.Families) bool { return f.Value("agentrun_http_requests_total", nil) >= 1 })
	for _, name := range dashboardMetrics(t) {
		if slices.Contains(notInAnApprovedRun, name) {
			continue
		}
		require.Contains(t, f, name, "the dashboard queries %s, which no scrape has", name)
	}
}
