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
)

// dialTimeout bounds the first contact with the server: a process that cannot
// reach Temporal should say so in seconds, not hang.
const dialTimeout = 5 * time.Second

// DataConverter is the converter every client uses. Payload encryption or
// compression, when it comes, is added here (converter.NewCodecDataConverter)
// so that workers, starters and the approval server agree on it.
func DataConverter() converter.DataConverter {
	return converter.GetDefaultDataConverter()
}

// Dial connects to Temporal and checks the server answers. The SDK's own logs
// go through logger.
func Dial(ctx context.Context, cfg Config, logger *slog.Logger) (client.Client, error) {
	if logger == nil {
		logger = slog.Default()
	}
	ctx, cancel := context.WithTimeout(ctx, dialTimeout)
	defer cancel()
	c, err := client.DialContext(ctx, client.Options{
		HostPort:      cfg.Address,
		Namespace:     cfg.Namespace,
		Logger:        log.NewStructuredLogger(logger),
		DataConverter: DataConverter(),
		ConnectionOptions: client.ConnectionOptions{
			GetSystemInfoTimeout: dialTimeout,
		},
	})
	if err != nil {
		return nil, fmt.Errorf("cannot reach Temporal at %s (namespace %s): %w", cfg.Address, cfg.Namespace, err)
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
