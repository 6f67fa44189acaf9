package telemetry

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"

	"github.com/agentrun/agentrun/internal/temporalclient"
)

// Telemetry is what a program runs for its metrics and traces: the
// /metrics listener when METRICS_ADDR is set, the tracer when an OTLP
// endpoint is. Either may be off.
type Telemetry struct {
	Metrics  *Metrics // nil without METRICS_ADDR
	Tracing  *Tracing // nil without an OTLP endpoint
	listener net.Listener
	server   *http.Server
	served   chan error
}

// ListenError is a METRICS_ADDR that cannot be listened on: a configuration
// the program refuses to start with.
type ListenError struct{ Err error }

func (e *ListenError) Error() string { return e.Err.Error() }
func (e *ListenError) Unwrap() error { return e.Err }

// Setup opens METRICS_ADDR (or takes l, already open, when not nil: tests
// pass a port-0 listener) and starts the tracer. Close undoes it.
func Setup(ctx context.Context, cfg Config, l net.Listener, logger *slog.Logger) (*Telemetry, error) {
	t := &Telemetry{}
	if cfg.MetricsAddr != "" || l != nil {
		if l == nil {
			var err error
			if l, err = net.Listen("tcp", cfg.MetricsAddr); err != nil {
				return nil, &ListenError{fmt.Errorf("METRICS_ADDR %s: %w", cfg.MetricsAddr, err)}
			}
		}
		t.listener = l
		t.Metrics = NewMetrics(logger)
		logger.Info("metrics listening", "variable", "METRICS_ADDR", "addr", l.Addr().String(), "path", "/metrics")
	}
	tracing, err := NewTracing(ctx, cfg)
	if err != nil {
		t.Close(ctx)
		return nil, err
	}
	if tracing != nil {
		t.Tracing = tracing
		logger.Info("exporting traces", "endpoint", cfg.OTLPEndpoint, "serviceName", cfg.ServiceName)
	}
	return t, nil
}

// Instrument returns c with the metrics handler and the tracing interceptor.
func (t *Telemetry) Instrument(c temporalclient.Config) temporalclient.Config {
	if t.Metrics != nil {
		c.MetricsHandler = t.Metrics.Handler()
	}
	c.Interceptors = append(c.Interceptors, t.Tracing.Interceptors()...)
	return c
}

// Serve serves /metrics until Close.
func (t *Telemetry) Serve() {
	if t.listener == nil {
		return
	}
	t.server = t.Metrics.newMetricsServer()
	t.served = make(chan error, 1)
	go func() { t.served <- t.server.Serve(t.listener) }()
}

// Addr is where /metrics is served; nil when it is not.
func (t *Telemetry) Addr() net.Addr {
	if t.listener == nil {
		return nil
	}
	return t.listener.Addr()
}

// Close stops serving /metrics and flushes the spans still held; ctx bounds
// both.
func (t *Telemetry) Close(ctx context.Context) error {
	var errs []error
	if t.server != nil {
		errs = append(errs, t.server.Shutdown(ctx))
		if err := <-t.served; !errors.Is(err, http.ErrServerClosed) {
			errs = append(errs, fmt.Errorf("serve METRICS_ADDR: %w", err))
		}
	} else if t.listener != nil {
		errs = append(errs, ignoreClosed(t.listener.Close()))
	}
	if t.Metrics != nil {
		errs = append(errs, t.Metrics.Close())
	}
	errs = append(errs, t.Tracing.Shutdown(ctx))
	return errors.Join(errs...)
}

func ignoreClosed(err error) error {
	if errors.Is(err, net.ErrClosed) {
		return nil
	}
	return err
}
