package mcptool

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A tool's agentrun name keeps a-z and 0-9, both ends included, makes
// everything else "_", and is at most 64 characters.
func TestAToolsNameKeepsLettersAndDigitsAndIsBounded(t *testing.T) {
	name, err := toolName("kv", "Az09-Za.9")
	require.NoError(t, err)
	assert.Equal(t, "kv__az09_za_9", name)
	name, err = toolName("kv", "a/z")
	assert.Error(t, err, "not an MCP tool name")
	assert.Empty(t, name)

	fits := strings.Repeat("x", 64-len("kv__"))
	name, err = toolName("kv", fits)
	require.NoError(t, err)
	assert.Len(t, name, 64)
	_, err = toolName("kv", fits+"x")
	assert.ErrorContains(t, err, "is longer than 64 characters")
}

// A stdio server's environment is its own entries, then the worker's base
// entries it does not set; an entry without "=" sets nothing.
func TestAStdioServersEnvironmentIsItsOwnThenTheBaseItDoesNotSet(t *testing.T) {
	assert.Equal(t, []string{"A=1", "PATH=/x", "HOME=/h"},
		childEnv([]string{"A=1", "PATH=/x"}, []string{"PATH=/usr/bin", "HOME=/h", "AB=2"}[:2]))
	assert.Equal(t, []string{"A", "A=base"}, childEnv([]string{"A"}, []string{"A=base"}), "an entry without = sets nothing")
	assert.Equal(t, []string{"AB=1", "A=base"}, childEnv([]string{"AB=1"}, []string{"A=base"}), "a longer name is another key")
}
