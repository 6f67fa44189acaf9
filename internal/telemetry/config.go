package telemetry

import (
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
)

// Config is what a program reads for its metrics and traces.
type Config struct {
	// MetricsAddr is host:port of the /metrics listener (METRICS_ADDR);
	// empty means no metrics are served.
	MetricsAddr string
	// OTLPEndpoint is where spans go (OTEL_EXPORTER_OTLP_ENDPOINT, or
	// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT which wins); empty means no traces
	// are exported. The exporter reads the other OTEL_EXPORTER_OTLP_*
	// variables (headers, timeout, certificate) itself.
	OTLPEndpoint string
	// ServiceName is OTEL_SERVICE_NAME, or the program's default.
	ServiceName string
}

// ConfigFromEnv reads METRICS_ADDR and the OTEL_* variables; defaultService
// names the program in its spans when OTEL_SERVICE_NAME is unset. A bad
// value is an error naming the variable.
func ConfigFromEnv(getenv func(string) string, defaultService string) (Config, error) {
	cfg, err := TracesFromEnv(getenv, defaultService)
	if err != nil {
		return Config{}, err
	}
	cfg.MetricsAddr = strings.TrimSpace(getenv("METRICS_ADDR"))
	if cfg.MetricsAddr != "" {
		if err := validateListenAddr(cfg.MetricsAddr); err != nil {
			return Config{}, fmt.Errorf("METRICS_ADDR: %w", err)
		}
	}
	return cfg, nil
}

// TracesFromEnv reads only the OTEL_* variables: what a short-lived command
// (the starter), which serves no metrics, reads.
func TracesFromEnv(getenv func(string) string, defaultService string) (Config, error) {
	cfg := Config{ServiceName: strings.TrimSpace(getenv("OTEL_SERVICE_NAME"))}
	if cfg.ServiceName == "" {
		cfg.ServiceName = defaultService
	}
	// Each read names its variable, so that internal/composecheck sees it.
	endpoints := []struct{ name, value string }{
		{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")},
		{"OTEL_EXPORTER_OTLP_ENDPOINT", getenv("OTEL_EXPORTER_OTLP_ENDPOINT")},
	}
	for _, e := range endpoints {
		v := strings.TrimSpace(e.value)
		if v == "" {
			continue
		}
		if err := validateEndpoint(v); err != nil {
			return Config{}, fmt.Errorf("%s: %w", e.name, err)
		}
		cfg.OTLPEndpoint = v
		break
	}
	return cfg, nil
}

// validateListenAddr accepts what net.Listen("tcp", …) does with a port
// spelled as a number: ":9090", "0.0.0.0:9090", "localhost:0".
func validateListenAddr(addr string) error {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%q is not host:port (like :9090): %w", addr, err)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return fmt.Errorf("%q: port %q is not a number from 0 to 65535", addr, port)
	}
	return nil
}

// validateEndpoint accepts the URL the OTLP specification asks for
// (http://collector:4317); the gRPC exporter takes its host and port, and
// http:// turns TLS off.
func validateEndpoint(v string) error {
	u, err := url.Parse(v)
	if err != nil {
		return fmt.Errorf("%q is not a URL: %w", v, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%q is not an http:// or https:// URL with a host (like http://otel-collector:4317)", v)
	}
	return nil
}
