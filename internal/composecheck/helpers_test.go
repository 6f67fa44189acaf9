package composecheck

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/compose-spec/compose-go/v2/cli"
	"github.com/compose-spec/compose-go/v2/types"
	"github.com/stretchr/testify/require"
)

// requiredEnv is what docker-compose.yml refuses to start without, set to
// values the programs accept (the secrets need 32 bytes).
var requiredEnv = map[string]string{
	"APPROVAL_SECRET":       "compose-test-approval-secret-0123456789",
	"GITHUB_WEBHOOK_SECRET": "compose-test-webhook-secret-0123456789",
}

// Services the tests name.
const (
	serviceTemporal      = "temporal"
	serviceTemporalSetup = "temporal-setup"
	serviceTemporalUI    = "temporal-ui"
	serviceWorker        = "worker"
	serviceApproval      = "approval"
	serviceSandbox       = "ghsandbox"
)

func repoModule(t *testing.T) Module {
	t.Helper()
	wd, err := os.Getwd()
	require.NoError(t, err)
	m, err := FindModule(wd)
	require.NoError(t, err)
	return m
}

// loadCompose loads docker-compose.yml as `docker compose` would, every
// profile enabled, with env (and nothing of this process's environment) as
// the variables it interpolates.
func loadCompose(t *testing.T, env map[string]string) (*types.Project, error) {
	t.Helper()
	root := repoModule(t).Root
	var list []string
	for _, key := range slices.Sorted(maps.Keys(env)) {
		list = append(list, key+"="+env[key])
	}
	options, err := cli.NewProjectOptions(
		[]string{filepath.Join(root, "docker-compose.yml")},
		cli.WithWorkingDirectory(root),
		cli.WithEnv(list),
		cli.WithProfiles([]string{"*"}),
	)
	require.NoError(t, err)
	return options.LoadProject(context.Background())
}

// mustLoadCompose loads the file with its required variables and extra.
func mustLoadCompose(t *testing.T, extra map[string]string) *types.Project {
	t.Helper()
	env := maps.Clone(requiredEnv)
	maps.Copy(env, extra)
	project, err := loadCompose(t, env)
	require.NoError(t, err)
	return project
}

func service(t *testing.T, project *types.Project, name string) types.ServiceConfig {
	t.Helper()
	s, err := project.GetService(name)
	require.NoError(t, err, "docker-compose.yml must have the service %s", name)
	return s
}

// environment flattens a service's environment; a variable set to nothing
// (`NAME:` or `${NAME:-}`) is the empty string, as the program sees it.
func environment(s types.ServiceConfig) map[string]string {
	env := make(map[string]string, len(s.Environment))
	for key, value := range s.Environment {
		env[key] = ""
		if value != nil {
			env[key] = *value
		}
	}
	return env
}

// getenv is the service's environment as a program's getenv sees it.
func getenv(s types.ServiceConfig) func(string) string {
	env := environment(s)
	return func(key string) string { return env[key] }
}

// builtServices are the services that run a program built from this repository.
func builtServices(project *types.Project) []types.ServiceConfig {
	var built []types.ServiceConfig
	for _, name := range slices.Sorted(maps.Keys(project.Services)) {
		if s := project.Services[name]; s.Build != nil {
			built = append(built, s)
		}
	}
	return built
}

// isOneShot tells a service that runs to completion instead of staying up.
func isOneShot(s types.ServiceConfig) bool {
	return s.Restart == types.RestartPolicyNo
}

// healthcheckCommand is the healthcheck's command as one line.
func healthcheckCommand(s types.ServiceConfig) string {
	if s.HealthCheck == nil {
		return ""
	}
	return strings.Join(s.HealthCheck.Test, " ")
}
