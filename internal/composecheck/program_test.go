package composecheck

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func fixtureModule(t *testing.T) Module {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("testdata", "envprog"))
	require.NoError(t, err)
	m, err := FindModule(root)
	require.NoError(t, err)
	require.Equal(t, "example.com/envprog", m.Path)
	return m
}

func TestLoadProgramFindsReadsThroughConstantsGetenvValuesAndMethods(t *testing.T) {
	m := fixtureModule(t)

	program, err := m.LoadProgram("example.com/envprog/cmd/tool")

	require.NoError(t, err)
	require.Equal(t, []string{"OTHER_NAME", "TOOL_ADDR", "TOOL_DEBUG", "TOOL_FROM_METHOD", "TOOL_PORT"}, program.Env.Names())
	require.Equal(t, []string{"config/config.go:13"}, program.Env["TOOL_ADDR"])
	require.True(t, program.Strings["GET /hello"], "literals of reached functions are collected")
}

func TestLoadProgramLeavesOutFunctionsTheMainNeverReaches(t *testing.T) {
	m := fixtureModule(t)

	program, err := m.LoadProgram("example.com/envprog/cmd/tool")

	require.NoError(t, err)
	require.NotContains(t, program.Env, "TOOL_LEGACY", "config.LoadLegacy is never mentioned")
	require.NotContains(t, program.Env, "OTHER_SECRET", "other is imported for Greeting only")
}

func TestLoadProgramRefusesAVariableNamedAtRunTime(t *testing.T) {
	m := fixtureModule(t)

	_, err := m.LoadProgram("example.com/envprog/cmd/dynamic")

	require.ErrorContains(t, err, "cmd/dynamic/main.go:8: reads an environment variable whose name is not a string constant")
}
