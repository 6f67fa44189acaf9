package telemetry

import (
	"context"
	"fmt"

	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.26.0"
	"go.opentelemetry.io/otel/trace"
	temporalotel "go.temporal.io/sdk/contrib/opentelemetry"
	"go.temporal.io/sdk/interceptor"
)

// TracerName names agentrun's tracer in every span it makes.
const TracerName = "github.com/agentrun/agentrun"

// Tracing is a tracer provider and the Temporal interceptor over it.
type Tracing struct {
	Interceptor interceptor.ClientInterceptor
	provider    *sdktrace.TracerProvider
	joiner      *signalTraceJoiner
}

// NewTracing exports spans over OTLP/gRPC to cfg.OTLPEndpoint. It returns
// nil, and no interceptor, when no endpoint is set: an unconfigured program
// makes no spans at all.
func NewTracing(ctx context.Context, cfg Config) (*Tracing, error) {
	if cfg.OTLPEndpoint == "" {
		return nil, nil
	}
	exporter, err := otlptracegrpc.New(ctx, otlptracegrpc.WithEndpointURL(cfg.OTLPEndpoint))
	if err != nil {
		return nil, fmt.Errorf("OTEL_EXPORTER_OTLP_ENDPOINT %s: %w", cfg.OTLPEndpoint, err)
	}
	return NewTracingWith(cfg.ServiceName, sdktrace.WithBatcher(exporter))
}

// NewTracingWith is NewTracing with the span processor given: tests pass
// sdktrace.WithSyncer(tracetest.NewInMemoryExporter()).
func NewTracingWith(serviceName string, processor sdktrace.TracerProviderOption) (*Tracing, error) {
	res, err := resource.Merge(resource.Default(),
		resource.NewSchemaless(semconv.ServiceName(serviceName)))
	if err != nil {
		return nil, fmt.Errorf("trace resource: %w", err)
	}
	provider := sdktrace.NewTracerProvider(processor, sdktrace.WithResource(res))
	i, err := temporalotel.NewTracingInterceptor(temporalotel.TracerOptions{Tracer: provider.Tracer(TracerName)})
	if err != nil {
		return nil, fmt.Errorf("temporal tracing interceptor: %w", err)
	}
	return &Tracing{Interceptor: i, provider: provider, joiner: &signalTraceJoiner{}}, nil
}

// Tracer makes spans of the program's own in the same provider.
func (t *Tracing) Tracer() trace.Tracer { return t.provider.Tracer(TracerName) }

// Shutdown sends the spans still buffered.
func (t *Tracing) Shutdown(ctx context.Context) error {
	if t == nil {
		return nil
	}
	if err := t.provider.Shutdown(ctx); err != nil {
		return fmt.Errorf("flush traces: %w", err)
	}
	return nil
}

// Interceptors is the list for temporalclient.Config.Interceptors; empty
// without tracing. The signal joiner comes first, outside the tracing
// interceptor, so that the signal's span is made under the run's.
func (t *Tracing) Interceptors() []interceptor.ClientInterceptor {
	if t == nil {
		return nil
	}
	return []interceptor.ClientInterceptor{t.joiner, t.Interceptor}
}
