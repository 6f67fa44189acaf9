package main

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/telemetry"
	"github.com/agentrun/agentrun/internal/testkit"
	"github.com/agentrun/agentrun/internal/testkit/standalone"
)

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func TestApprovalRefusesBadConfigWithExitCode2NamingTheVariable(t *testing.T) {
	cases := map[string]map[string]string{
		"APPROVAL_SECRET":       {},
		"GITHUB_WEBHOOK_SECRET": {"APPROVAL_SECRET": e2eSecret},
		"APPROVAL_INSECURE_DEV": {"APPROVAL_INSECURE_DEV": "maybe"},
		"APPROVAL_ADDR":         {"APPROVAL_INSECURE_DEV": "1", "APPROVAL_ADDR": "0.0.0.0:8080"},
		"APPROVAL_TRUSTED_PROXIES": {
			"APPROVAL_SECRET": e2eSecret, "GITHUB_WEBHOOK_SECRET": e2eWebhookSecret, "APPROVAL_IDENTITY_HEADER": identityHeader,
		},
		"TEMPORAL_ADDRESS":            {"APPROVAL_INSECURE_DEV": "1", "TEMPORAL_ADDRESS": "no-port"},
		"GITHUB_API_URL":              {"APPROVAL_INSECURE_DEV": "1", "GITHUB_API_URL": "ftp://example"},
		"GITHUB_TOKEN":                {"APPROVAL_INSECURE_DEV": "1", "GITHUB_TOKEN": "ghp_x\n"},
		"TEMPORAL_TLS":                {"APPROVAL_INSECURE_DEV": "1", "TEMPORAL_TLS": "yes"},
		"AGENTRUN_PAYLOAD_KEYS":       {"APPROVAL_INSECURE_DEV": "1", "AGENTRUN_PAYLOAD_KEYS": "k1:c2hvcnQ="},
		"METRICS_ADDR":                {"APPROVAL_INSECURE_DEV": "1", "METRICS_ADDR": "9464"},
		"OTEL_EXPORTER_OTLP_ENDPOINT": {"APPROVAL_INSECURE_DEV": "1", "OTEL_EXPORTER_OTLP_ENDPOINT": "collector:4317"},
		// A codec endpoint with no keys would decode nothing: refused.
		"AGENTRUN_CODEC_TOKEN": {"APPROVAL_INSECURE_DEV": "1", "AGENTRUN_CODEC_TOKEN": "codec-token-0123456789abcdef0123456789"},
	}
	for variable, env := range cases {
		t.Run(variable, func(t *testing.T) {
			err := run(context.Background(), standalone.Getenv(env), quietLogger())

			require.ErrorContains(t, err, variable)
			require.Equal(t, 2, exitCode(err, quietLogger()))
		})
	}
}

func TestApprovalWithoutTemporalExitsWith1(t *testing.T) {
	err := run(context.Background(), standalone.Getenv(map[string]string{
		"APPROVAL_INSECURE_DEV": "1", "TEMPORAL_ADDRESS": "127.0.0.1:1",
	}), quietLogger())

	require.ErrorContains(t, err, "cannot reach Temporal at 127.0.0.1:1")
	require.Equal(t, 1, exitCode(err, quietLogger()))
}

func TestApprovalClosesTheListenersItWasGivenWhenStartUpFails(t *testing.T) {
	listener := testkit.Listen(t)

	err := runOn(context.Background(), standalone.Getenv(map[string]string{}), quietLogger(), map[string]net.Listener{"APPROVAL_ADDR": listener})

	require.ErrorContains(t, err, "APPROVAL_SECRET")
	_, dialErr := net.Dial("tcp", listener.Addr().String())
	require.Error(t, dialErr, "a listener handed to the server is closed when it gives up")
}

// The start-up tests below only dial Temporal, so they share the binary's
// dev server (TestMain's testkit.Main stops it); the stack tests, whose
// inbox lists every run of the namespace, keep servers of their own.
func TestApprovalServesUntilItsContextEnds(t *testing.T) {
	server := testkit.SharedServer(t)
	listener := testkit.Listen(t)
	addr := listener.Addr().String()
	stopped := startMain(t, map[string]string{
		"APPROVAL_ADDR": addr, "APPROVAL_SECRET": e2eSecret, "GITHUB_WEBHOOK_SECRET": e2eWebhookSecret,
		"TEMPORAL_ADDRESS": server.Address(),
	}, map[string]net.Listener{"APPROVAL_ADDR": listener})

	waitHealthy(t, addr)
	require.Equal(t, http.StatusUnauthorized, getStatus(t, "http://"+addr+"/v1/runs/no-such-run", nil), "reads need a signature")
	require.Equal(t, http.StatusUnauthorized, getStatus(t, "http://"+addr+"/", nil), "the pages need the login proxy's user")
	read := httptest.NewRequest(http.MethodGet, "/v1/runs/no-such-run", nil)
	api.SignRequest(read, []byte(e2eSecret), nil, time.Now())
	signed := map[string]string{
		api.HeaderTimestamp: read.Header.Get(api.HeaderTimestamp),
		api.HeaderSignature: read.Header.Get(api.HeaderSignature),
	}
	require.Equal(t, http.StatusNotFound, getStatus(t, "http://"+addr+"/v1/runs/no-such-run", signed))

	stopped.stop(t)
}

func TestApprovalWithAWebhookAddressServesTheWebhookOnlyThere(t *testing.T) {
	server := testkit.SharedServer(t)
	api, webhook := testkit.Listen(t), testkit.Listen(t)
	addr, webhookAddr := api.Addr().String(), webhook.Addr().String()
	stopped := startMain(t, map[string]string{
		"APPROVAL_ADDR": addr, "APPROVAL_WEBHOOK_ADDR": webhookAddr,
		"APPROVAL_SECRET": e2eSecret, "GITHUB_WEBHOOK_SECRET": e2eWebhookSecret,
		"TEMPORAL_ADDRESS": server.Address(),
	}, map[string]net.Listener{"APPROVAL_ADDR": api, "APPROVAL_WEBHOOK_ADDR": webhook})
	waitHealthy(t, addr)
	waitHealthy(t, webhookAddr)

	// An unsigned delivery: the webhook listener answers it (401), the main
	// listener does not know the route at all.
	require.Equal(t, http.StatusUnauthorized, postStatus(t, "http://"+webhookAddr+"/github/webhook"))
	require.Equal(t, http.StatusNotFound, postStatus(t, "http://"+addr+"/github/webhook"))
	require.Equal(t, http.StatusNotFound, getStatus(t, "http://"+webhookAddr+"/v1/approvals", nil), "the webhook listener serves nothing else")
	require.Equal(t, http.StatusNotFound, getStatus(t, "http://"+webhookAddr+"/", nil))

	stopped.stop(t)
}

type mainProcess struct {
	cancel  context.CancelFunc
	stopped chan error
}

// startMain runs the approval main in this process, on the listeners the
// test opened, until stop.
func startMain(t *testing.T, env map[string]string, bound map[string]net.Listener) *mainProcess {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	m := &mainProcess{cancel: cancel, stopped: make(chan error, 1)}
	go func() { m.stopped <- runOn(ctx, standalone.Getenv(env), quietLogger(), bound) }()
	t.Cleanup(cancel)
	return m
}

func (m *mainProcess) stop(t *testing.T) {
	t.Helper()
	m.cancel()
	select {
	case err := <-m.stopped:
		require.NoError(t, err)
	case <-time.After(30 * time.Second):
		t.Fatal("the server did not stop after its context ended")
	}
}

func waitHealthy(t *testing.T, addr string) {
	t.Helper()
	require.Eventually(t, func() bool {
		resp, err := http.Get("http://" + addr + "/healthz")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	}, 30*time.Second, 20*time.Millisecond)
}

func getStatus(t *testing.T, url string, headers map[string]string) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	require.NoError(t, err)
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	return resp.StatusCode
}

func postStatus(t *testing.T, url string) int {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(`{}`))
	require.NoError(t, err)
	resp.Body.Close()
	return resp.StatusCode
}

func TestApprovalCountsRequestsByRouteAndCodeOnMetricsAddr(t *testing.T) {
	server := testkit.SharedServer(t)
	api, metrics := testkit.Listen(t), testkit.Listen(t)
	addr := api.Addr().String()
	stopped := startMain(t, map[string]string{
		"APPROVAL_ADDR": addr, "APPROVAL_SECRET": e2eSecret, "GITHUB_WEBHOOK_SECRET": e2eWebhookSecret,
		"TEMPORAL_ADDRESS": server.Address(), "METRICS_ADDR": metrics.Addr().String(),
	}, map[string]net.Listener{"APPROVAL_ADDR": api, "METRICS_ADDR": metrics})
	waitHealthy(t, addr)

	require.Equal(t, http.StatusUnauthorized, getStatus(t, "http://"+addr+"/v1/runs/run-1", nil))
	require.Equal(t, http.StatusUnauthorized, getStatus(t, "http://"+addr+"/v1/runs/run-2", nil))
	require.Equal(t, http.StatusNotFound, getStatus(t, "http://"+addr+"/no/such/page", nil))

	var f telemetry.Families
	require.Eventually(t, func() bool {
		var err error
		f, err = telemetry.Scrape(context.Background(), "http://"+metrics.Addr().String()+"/metrics")
		return err == nil && f.Value("agentrun_http_requests_total", map[string]string{"code": "404"}) >= 1
	}, 30*time.Second, 100*time.Millisecond)
	require.Equal(t, 2.0, f.Value("agentrun_http_requests_total", map[string]string{"route": "GET /v1/runs/{runId}", "code": "401"}),
		"two run IDs, one series: the route's pattern, not the path")
	require.Equal(t, 1.0, f.Value("agentrun_http_requests_total", map[string]string{"route": telemetry.RouteOther, "code": "404"}))
	require.GreaterOrEqual(t, f.Value("agentrun_http_requests_total", map[string]string{"route": "GET /healthz", "code": "200"}), 1.0)
	require.Equal(t, 2.0, f.Value("agentrun_http_request_duration_seconds", map[string]string{"route": "GET /v1/runs/{runId}"}))
	require.Contains(t, f, "temporal_request_total", "the SDK's client metrics share the registry")
	for _, m := range f["agentrun_http_requests_total"].GetMetric() {
		for _, l := range m.GetLabel() {
			require.NotContains(t, l.GetValue(), "run-1", "no raw path in a label")
		}
	}

	stopped.stop(t)
}
