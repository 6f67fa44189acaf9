package composecheck

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func fixtureModule(t *testing.T) Module {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("testdata", "prog"))
	require.NoError(t, err)
	m, err := FindModule(root)
	require.NoError(t, err)
	require.Equal(t, "example.com/prog", m.Path)
	return m
}

func TestLoadProgramCollectsTheLiteralsOfReachedFunctionsAndMethods(t *testing.T) {
	program, err := fixtureModule(t).LoadProgram("example.com/prog/cmd/tool")

	require.NoError(t, err)
	require.True(t, program.Strings["GET /hello"], "other.Greeting is called")
	require.True(t, program.Strings["TOOL_FROM_METHOD"], "methods always count")
	require.True(t, program.Strings["TOOL_PORT"], "config.Load is called")
}

func TestLoadProgramLeavesOutFunctionsTheMainNeverReaches(t *testing.T) {
	program, err := fixtureModule(t).LoadProgram("example.com/prog/cmd/tool")

	require.NoError(t, err)
	require.False(t, program.Strings["TOOL_LEGACY"], "config.LoadLegacy is never mentioned")
	require.False(t, program.Strings["OTHER_SECRET"], "other is imported for Greeting only")
}
