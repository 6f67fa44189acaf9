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
	return loadComposeFile(t, filepath.Join(repoModule(t).Root, "docker-compose.yml"), env)
}

// loadComposeFile loads file as if it were the repository's compose file.
func loadComposeFile(t *testing.T, file string, env map[string]string) (*types.Project, error) {
	t.Helper()
	root := repoModule(t).Root
	var list []string
	for _, key := range slices.Sorted(maps.Keys(env)) {
		list = append(list, key+"="+env[key])
	}
	options, err := cli.NewProjectOptions(
		[]string{file},
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
	return mustLoadComposeFile(t, filepath.Join(repoModule(t).Root, "docker-compose.yml"), extra)
}

func mustLoadComposeFile(t *testing.T, file string, extra map[string]string) *types.Project {
	t.Helper()
	env := maps.Clone(requiredEnv)
	maps.Copy(env, extra)
	project, err := loadComposeFile(t, file, env)
	require.NoError(t, err)
	return project
}

// readCompose is the text of docker-compose.yml, for a test to break.
func readCompose(t *testing.T) string {
	t.Helper()
	return readRepoFile(t, "docker-compose.yml")
}

// readRepoFile is the text of a file of this repository.
func readRepoFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoModule(t).Root, name))
	require.NoError(t, err)
	return string(b)
}

// writeCompose writes a compose file of the test's own.
func writeCompose(t *testing.T, text string) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "docker-compose.yml")
	require.NoError(t, os.WriteFile(file, []byte(text), 0o644))
	return file
}

func service(t *testing.T, project *types.Project, name string) types.ServiceConfig {
	t.Helper()
	s, err := project.GetService(name)
	require.NoError(t, err, "docker-compose.yml must have the service %s", name)
	return s
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
