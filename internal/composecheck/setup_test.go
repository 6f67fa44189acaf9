package composecheck

import (
	"context"
	"io"
	"log/slog"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/testsuite"

	"github.com/agentrun/agentrun/internal/testkit"
)

// setupTimeout covers a cold start of the dev server on a busy machine.
const setupTimeout = 2 * time.Minute

func TestSetupScriptReadsExactlyTheVariablesComposeGivesIt(t *testing.T) {
	setup := service(t, mustLoadCompose(t, nil), serviceTemporalSetup)
	script, err := os.ReadFile(filepath.Join(repoModule(t).Root, "deploy", "temporal-setup.sh"))
	require.NoError(t, err)

	read := make(map[string]bool)
	for _, match := range regexp.MustCompile(`\$\{([A-Z][A-Z0-9_]*)`).FindAllStringSubmatch(string(script), -1) {
		read[match[1]] = true
	}

	require.Equal(t, slices.Sorted(maps.Keys(read)), slices.Sorted(maps.Keys(environment(setup))))
}

// TestSetupScriptRegistersTheContractsSearchAttributesOnARealServer runs
// deploy/temporal-setup.sh, with the environment compose gives it, against a
// dev server that knows none of agentrun's search attributes, then again.
func TestSetupScriptRegistersTheContractsSearchAttributesOnARealServer(t *testing.T) {
	m := repoModule(t)
	declared, err := DeclaredSearchAttributes(filepath.Join(m.Root, "api"))
	require.NoError(t, err)
	require.NotEmpty(t, declared)
	setup := service(t, mustLoadCompose(t, nil), serviceTemporalSetup)
	namespace := environment(setup)["TEMPORAL_NAMESPACE"]
	server := startBareDevServer(t, testkit.TemporalCLI(t))

	for run := 1; run <= 2; run++ {
		runSetupScript(t, m.Root, setup.Environment, server.address)

		response, err := server.client.OperatorService().ListSearchAttributes(context.Background(),
			&operatorservice.ListSearchAttributesRequest{Namespace: namespace})
		require.NoError(t, err)
		registered := make(map[string]string)
		for name, typ := range response.GetCustomAttributes() {
			registered[name] = typ.String()
		}
		require.Equal(t, declared, registered, "run %d: the registered attributes are the ones package api declares", run)
	}
}

// quietLogger keeps the SDK's start-up chatter out of the test output;
// errors still show.
func quietLogger() log.Logger {
	return log.NewStructuredLogger(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError})))
}

type bareDevServer struct {
	address string
	client  client.Client
}

// startBareDevServer starts the CLI's dev server with no search attribute
// registered (internal/testkit registers agentrun's, which would hide
// what the script does).
func startBareDevServer(t *testing.T, binary string) bareDevServer {
	t.Helper()
	address := testkit.FreeAddress(t)

	ctx, cancel := context.WithTimeout(context.Background(), setupTimeout)
	defer cancel()
	server, err := testsuite.StartDevServer(ctx, testsuite.DevServerOptions{
		ExistingPath:  binary,
		ClientOptions: &client.Options{HostPort: address, Logger: quietLogger()},
		LogLevel:      "error",
		Stdout:        io.Discard,
	})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, server.Stop()) })
	return bareDevServer{address: address, client: server.Client()}
}

// runSetupScript runs the script as temporal-setup does, with the Temporal
// CLI of bin/ on the PATH and the compose address swapped for the server's.
func runSetupScript(t *testing.T, root string, composeEnv map[string]*string, address string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), setupTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", filepath.Join(root, "deploy", "temporal-setup.sh"))
	cmd.Env = []string{"PATH=" + filepath.Join(root, "bin") + string(os.PathListSeparator) + os.Getenv("PATH"), "HOME=" + t.TempDir()}
	for key, value := range composeEnv {
		if key == "TEMPORAL_ADDRESS" {
			cmd.Env = append(cmd.Env, key+"="+address)
			continue
		}
		cmd.Env = append(cmd.Env, key+"="+*value)
	}
	output, err := cmd.CombinedOutput()
	require.NoError(t, err, "temporal-setup.sh:\n%s", output)
}
