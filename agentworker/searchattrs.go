package agentworker

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/agentrun/agentrun/internal/startup"
	"github.com/agentrun/agentrun/internal/temporalclient"
	"github.com/agentrun/agentrun/runclient"
)

// setUpCallTimeout bounds each operator call of the search-attribute setup.
const setUpCallTimeout = 10 * time.Second

// setUpSearchAttributes adds the search attributes the namespace lacks
// before the worker takes a task: a run on a namespace without them fails
// its first workflow task. A server that refuses to add them, or has one of
// another type, stops the worker with exit code 2 and the fix, like a bad
// variable: trying again changes nothing until someone runs it.
func setUpSearchAttributes(ctx context.Context, c client.Client, cfg temporalclient.Config, logger *slog.Logger) error {
	rc := runclient.New(c, runclient.Options{CallTimeout: setUpCallTimeout, Address: cfg.Address, Namespace: cfg.Namespace})
	added, err := rc.SetUpSearchAttributes(ctx)
	var missing *runclient.MissingSearchAttributesError
	var wrongType *runclient.SearchAttributeTypeError
	if errors.As(err, &missing) || errors.As(err, &wrongType) {
		return &startup.ConfigError{Err: err}
	}
	if err != nil {
		return err
	}
	if len(added) > 0 {
		logger.Info("added the search attributes the namespace lacked", "namespace", cfg.Namespace, "added", strings.Join(added, ","))
	}
	return nil
}
