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
