package prodstack

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/agentrun/agentrun/internal/e2e"
	"github.com/agentrun/agentrun/internal/temporalclient"
	"github.com/agentrun/agentrun/internal/testkit"
)

const (
	// serverStartTimeout covers the server's start, ring join and shard
	// acquisition on a busy 2-core machine.
	serverStartTimeout = 3 * time.Minute
	// serverStopGrace is how long a SIGTERM may take before SIGKILL.
	serverStopGrace = 30 * time.Second
	// callTimeout bounds one call of the harness to the frontend.
	callTimeout = 5 * time.Second
	// retention is auto-setup's default for the namespace it creates.
	retention = 24 * time.Hour
)

// temporalServer is the server process, all services in one, on the config
// written under root.
type temporalServer struct {
	binary string
	root   string
	proc   *e2e.Process
	starts int
}

// start launches the server; it is SIGKILLed when t ends if still running.
func (s *temporalServer) start(t testing.TB) {
	t.Helper()
	s.starts++
	s.proc = e2e.StartProcess(t, e2e.ProcessSpec{
		Name:   fmt.Sprintf("temporal-server-%d", s.starts),
		Binary: s.binary,
		Args:   []string{"--root", s.root, "--config", "config", "--env", serverEnv, "--allow-no-auth", "start"},
	})
}

// stop shuts the server down as its orchestrator would, SIGTERM first.
func (s *temporalServer) stop() bool { return s.proc.Stop(syscall.SIGTERM, serverStopGrace) }

// waitServing waits until the frontend answers its health check over mTLS
// and returns a client of it that does not need the namespace to exist.
func (s *temporalServer) waitServing(t testing.TB, cfg temporalclient.Config) client.Client {
	t.Helper()
	opts := cfg.ClientOptions(testkit.QuietLogger())
	return e2e.Eventually(t, serverStartTimeout, "the Temporal frontend at "+cfg.Address+" to pass its health check", func() (client.Client, bool, string) {
		if done, err := s.proc.Exited(); done {
			t.Fatalf("the Temporal server exited (%v); its log:\n%s", err, s.proc.LogTail())
		}
		ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
		defer cancel()
		c, err := client.DialContext(ctx, opts)
		if err != nil {
			return nil, false, err.Error()
		}
		if _, err := c.CheckHealth(ctx, &client.CheckHealthRequest{}); err != nil {
			c.Close()
			return nil, false, err.Error()
		}
		return c, true, ""
	})
}

// registerNamespace creates the namespace, as auto-setup's DEFAULT_NAMESPACE
// does, and registers the search attributes, as deploy/temporal-setup.sh
// does, through the operator service. It waits until the frontend lists
// every one with its type.
func registerNamespace(t testing.TB, c client.Client, namespace string) {
	t.Helper()
	ctx := context.Background()
	e2e.Eventually(t, serverStartTimeout, "namespace "+namespace+" to be registered", func() (struct{}, bool, string) {
		callCtx, cancel := context.WithTimeout(ctx, callTimeout)
		defer cancel()
		_, err := c.WorkflowService().RegisterNamespace(callCtx, &workflowservice.RegisterNamespaceRequest{
			Namespace: namespace, WorkflowExecutionRetentionPeriod: durationpb.New(retention),
		})
		var exists *serviceerror.NamespaceAlreadyExists
		return struct{}{}, err == nil || errors.As(err, &exists), errText(err)
	})
	want := map[string]enumspb.IndexedValueType{}
	for key := range testkit.SearchAttributes().GetUntypedValues() {
		want[key.GetName()] = key.GetValueType()
	}
	e2e.Eventually(t, serverStartTimeout, "the search attributes to be registered in "+namespace, func() (struct{}, bool, string) {
		callCtx, cancel := context.WithTimeout(ctx, callTimeout)
		defer cancel()
		listed, err := c.OperatorService().ListSearchAttributes(callCtx, &operatorservice.ListSearchAttributesRequest{Namespace: namespace})
		if err != nil {
			return struct{}{}, false, err.Error()
		}
		missing := map[string]enumspb.IndexedValueType{}
		for name, typ := range want {
			if listed.GetCustomAttributes()[name] != typ {
				missing[name] = typ
			}
		}
		if len(missing) == 0 {
			return struct{}{}, true, ""
		}
		// A namespace just created can be unknown to the operator service
		// until its cache refreshes; adding again is a no-op once it worked.
		_, err = c.OperatorService().AddSearchAttributes(callCtx, &operatorservice.AddSearchAttributesRequest{
			Namespace: namespace, SearchAttributes: missing,
		})
		return struct{}{}, false, fmt.Sprintf("missing %s; add: %s", names(missing), errText(err))
	})
	// The frontend validates a start's search attributes against its own
	// cache of the namespace, which learns of them a few seconds after the
	// operator service lists them: a start carrying them, on a queue
	// nobody polls, is what proves they can be used.
	e2e.Eventually(t, serverStartTimeout, "the frontend to accept starts carrying the search attributes", func() (struct{}, bool, string) {
		callCtx, cancel := context.WithTimeout(ctx, callTimeout)
		defer cancel()
		run, err := c.ExecuteWorkflow(callCtx, client.StartWorkflowOptions{
			ID: "prodstack-search-attributes", TaskQueue: "prodstack-search-attributes",
			TypedSearchAttributes: testkit.SearchAttributes(),
		}, "prodstack-none")
		if err != nil {
			return struct{}{}, false, errText(err)
		}
		if err := c.TerminateWorkflow(callCtx, run.GetID(), run.GetRunID(), "the search attributes are usable"); err != nil {
			return struct{}{}, false, errText(err)
		}
		return struct{}{}, true, ""
	})
}

func names(m map[string]enumspb.IndexedValueType) string {
	var out []string
	for name, typ := range m {
		out = append(out, name+"="+typ.String())
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
