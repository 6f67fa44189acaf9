package config_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/internal/config"
)

func secretFile(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "token")
	require.NoError(t, os.WriteFile(path, []byte(content), 0o600))
	return path
}

func TestSecretIsReadFromTheFileItsFileVariableNames(t *testing.T) {
	s, err := sampleTable().Read(env(map[string]string{"SAMPLE_TOKEN_FILE": secretFile(t, "t0k-from-file\n")}))

	require.NoError(t, err)
	require.Equal(t, "t0k-from-file", s.token, "the one trailing newline an editor leaves is dropped")
}

func TestSecretFromAFileIsCheckedAndRedactedLikeTheVariable(t *testing.T) {
	_, err := sampleTable().Read(env(map[string]string{"SAMPLE_TOKEN_FILE": secretFile(t, "bad-hunter2\n")}))

	require.ErrorContains(t, err, "SAMPLE_TOKEN: ")
	require.NotContains(t, err.Error(), "hunter2")
}

func TestSecretSetBothWaysStopsStartUpNamingBoth(t *testing.T) {
	_, err := sampleTable().Read(env(map[string]string{"SAMPLE_TOKEN": "t0k", "SAMPLE_TOKEN_FILE": secretFile(t, "other")}))

	require.EqualError(t, err, "both SAMPLE_TOKEN and SAMPLE_TOKEN_FILE are set: set one")
	var cfgErr *config.Error
	require.ErrorAs(t, err, &cfgErr, "a main exits 2 on it")
}

func TestSecretFileThatCannotBeReadStopsStartUpNamingItsVariable(t *testing.T) {
	dir := t.TempDir()
	for name, path := range map[string]string{
		"missing":   filepath.Join(dir, "no-such-token"),
		"directory": dir,
		"empty":     secretFile(t, "\n"),
	} {
		t.Run(name, func(t *testing.T) {
			_, err := sampleTable().Read(env(map[string]string{"SAMPLE_TOKEN_FILE": path}))

			var cfgErr *config.Error
			require.ErrorAs(t, err, &cfgErr)
			require.Equal(t, "SAMPLE_TOKEN_FILE", cfgErr.Name)
			require.ErrorContains(t, err, "SAMPLE_TOKEN_FILE: the file of SAMPLE_TOKEN: ")
		})
	}
}

// Only a secret may come from a file: a non-secret's _FILE is not one of the
// table's variables and reads as nothing.
func TestFileVariableOfANonSecretIsIgnored(t *testing.T) {
	s, err := sampleTable().Read(env(map[string]string{"SAMPLE_TOKEN": "t0k", "SAMPLE_PORT_FILE": secretFile(t, "9")}))

	require.NoError(t, err)
	require.Equal(t, 8080, s.port)
}

// A child started with the inherited environment (exec.Cmd with a nil Env)
// gets what os.Environ holds when it starts.
func TestTakeEnvironmentLeavesNoSecretForAChildToInherit(t *testing.T) {
	t.Setenv("SAMPLE_TOKEN", "hunter2")
	t.Setenv("SAMPLE_TOKEN_FILE", "/run/secrets/token")
	t.Setenv("SAMPLE_PORT", "9090")

	getenv, err := sampleTable().TakeEnvironment()
	require.NoError(t, err)

	require.Equal(t, "hunter2", getenv("SAMPLE_TOKEN"), "the table still reads it")
	_, inherited := os.LookupEnv("SAMPLE_TOKEN")
	require.False(t, inherited)
	_, inherited = os.LookupEnv("SAMPLE_TOKEN_FILE")
	require.False(t, inherited)
	child, err := exec.Command("env").Output()
	require.NoError(t, err)
	require.NotContains(t, string(child), "hunter2")
	require.NotContains(t, string(child), "SAMPLE_TOKEN_FILE")
	require.Contains(t, string(child), "SAMPLE_PORT=9090", "a non-secret stays")
}

// A secret whose file variable is named otherwise (GitHub's
// GITHUB_APP_PRIVATE_KEY_FILE for GITHUB_APP_PRIVATE_KEY_DATA) is read,
// refused twice and taken from the environment under that name.
func TestSecretWithItsOwnFileVariableNameIsReadThroughIt(t *testing.T) {
	table := config.Table[string]{Program: "sample", Settings: []config.Setting[string]{
		{Name: "SAMPLE_KEY_DATA", File: "SAMPLE_KEY_FILE", Secret: true, Parse: func(c *string, v string) error { *c = v; return nil }},
	}}
	got, err := table.Read(env(map[string]string{"SAMPLE_KEY_FILE": secretFile(t, "k3y\n")}))
	require.NoError(t, err)
	require.Equal(t, "k3y", got)

	_, err = table.Read(env(map[string]string{"SAMPLE_KEY_DATA": "k3y", "SAMPLE_KEY_FILE": secretFile(t, "k3y")}))
	require.EqualError(t, err, "both SAMPLE_KEY_DATA and SAMPLE_KEY_FILE are set: set one")
	require.Equal(t, "SAMPLE_KEY_FILE", table.Vars()[0].FileVar())

	t.Setenv("SAMPLE_KEY_FILE", "/run/secrets/key")
	getenv, err := table.TakeEnvironment()
	require.NoError(t, err)
	require.Equal(t, "/run/secrets/key", getenv("SAMPLE_KEY_FILE"))
	_, inherited := os.LookupEnv("SAMPLE_KEY_FILE")
	require.False(t, inherited)
}
