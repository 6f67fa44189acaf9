package temporalclient

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/temporal"
)

// dialTimeout bounds the first contact with the server: a process that cannot
// reach Temporal should say so in seconds, not hang.
const dialTimeout = 5 * time.Second

// DataConverter is the converter of every client with this config: JSON,
// then the payload codec when keys are configured. Made here only, so that
// workers, starters and the approval server agree on it, and workflows,
// activities, queries and signals all pass through it.
func (c Config) DataConverter() converter.DataConverter {
	if c.Codec == nil {
		return converter.GetDefaultDataConverter()
	}
	return converter.NewCodecDataConverter(converter.GetDefaultDataConverter(), c.Codec)
}

// ClientOptions are the SDK options Dial uses; logger takes the SDK's logs.
func (c Config) ClientOptions(logger *slog.Logger) client.Options {
	if logger == nil {
		logger = slog.Default()
	}
	conn := c.connection
	conn.GetSystemInfoTimeout = dialTimeout
	conn.GrpcCompression = c.Compression.For(c.Address).grpc()
	dc := c.DataConverter()
	return client.Options{
		HostPort:        c.Address,
		Namespace:       c.Namespace,
		Credentials:     c.auth.Credentials,
		HeadersProvider: c.auth.HeadersProvider,
		Logger:          log.NewStructuredLogger(logger),
		DataConverter:   dc,
		// An activity's error message can quote a pull request (a refused
		// marker, a GitHub 422): with keys, failures' messages and stack
		// traces are encrypted too.
		FailureConverter: temporal.NewDefaultFailureConverter(temporal.DefaultFailureConverterOptions{
			DataConverter:          dc,
			EncodeCommonAttributes: c.Codec != nil,
		}),
		ConnectionOptions: conn,
		MetricsHandler:    c.MetricsHandler,
		Interceptors:      c.Interceptors,
	}
}

// Dial connects to Temporal and checks the server answers. The SDK's own logs
// go through logger.
func Dial(ctx context.Context, cfg Config, logger *slog.Logger) (client.Client, error) {
	ctx, cancel := context.WithTimeout(ctx, dialTimeout)
	defer cancel()
	c, err := client.DialContext(ctx, cfg.ClientOptions(logger))
	if err != nil {
		return nil, fmt.Errorf("cannot reach Temporal at %s (namespace %s) over %s: %w", cfg.Address, cfg.Namespace, cfg.describeAuth(), err)
	}
	// The server answers even for a namespace it does not have; checking here
	// turns a typo into one clear message instead of failures on every call.
	_, err = c.WorkflowService().DescribeNamespace(ctx, &workflowservice.DescribeNamespaceRequest{Namespace: cfg.Namespace})
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("namespace %s is not usable on Temporal at %s: %w", cfg.Namespace, cfg.Address, err)
	}
	return c, nil
}

// describeAuth adds to a dial error what was tried, since "connection
// closed" from a TLS server dialled in plaintext says nothing of it.
func (c Config) describeAuth() string {
	s := "plaintext"
	if c.TLS() {
		s = "TLS"
	}
	if c.APIKey() {
		s += " with an API key"
	}
	if c.Profile != "" {
		s += fmt.Sprintf(" (profile %s of %s)", c.Profile, c.ConfigFile)
	}
	return s
}

// LogAttrs describe the connection for a process's start-up log, without
// secrets.
func (c Config) LogAttrs() []any {
	attrs := []any{"temporal", c.Address, "namespace", c.Namespace, "tls", c.TLS(), "apiKey", c.APIKey(),
		"grpcCompression", string(c.Compression.For(c.Address))}
	if c.Profile != "" {
		attrs = append(attrs, "temporalProfile", c.Profile, "temporalConfigFile", c.ConfigFile)
	}
	if c.Codec != nil {
		attrs = append(attrs, "payloadEncryptionKey", c.Codec.EncryptingKeyID(), "payloadDecryptionKeys", len(c.Codec.KeyIDs()))
	} else {
		attrs = append(attrs, "payloadEncryption", false)
	}
	return attrs
}
