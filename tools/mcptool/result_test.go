package mcptool

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func decode(t *testing.T, raw json.RawMessage) content {
	t.Helper()
	var c content
	require.NoError(t, json.Unmarshal(raw, &c))
	return c
}

func TestAHugeTextResultIsCutAndSaysSo(t *testing.T) {
	// Multi-byte runes across the cut: the cut must not split one.
	huge := strings.Repeat("é", maxText)
	out, text, err := output(&mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: huge}}})
	require.NoError(t, err)
	assert.Equal(t, huge, text, "an error message is built from the whole text, then bounded")
	c := decode(t, out.Content)
	assert.LessOrEqual(t, len(c.Text), maxText)
	assert.True(t, utf8.ValidString(c.Text))
	assert.Contains(t, c.Truncated, "text cut from 131072 to")
}

func TestHugeStructuredContentIsLeftOutAndSaysSo(t *testing.T) {
	big := map[string]string{"blob": strings.Repeat("x", maxStructured)}
	out, _, err := output(&mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "summary"}}, StructuredContent: big})
	require.NoError(t, err)
	c := decode(t, out.Content)
	assert.Equal(t, "summary", c.Text)
	assert.Empty(t, c.Structured)
	assert.Contains(t, c.Truncated, "structured content of")
	assert.LessOrEqual(t, len(out.Content), maxText+maxStructured+1024, "one call's output stays bounded")
}

func TestContentThatIsNotTextIsNamedNotPassedOn(t *testing.T) {
	out, _, err := output(&mcp.CallToolResult{Content: []mcp.Content{
		&mcp.TextContent{Text: "a"},
		&mcp.ImageContent{MIMEType: "image/png", Data: []byte("\x89PNG")},
		&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///x", Text: "inside"}},
		&mcp.ResourceLink{URI: "file:///y", Name: "y"},
	}, StructuredContent: map[string]int{"n": 1}})
	require.NoError(t, err)
	c := decode(t, out.Content)
	assert.Equal(t, "a\n[image/png image omitted]\ninside\n[resource link file:///y]", c.Text)
	assert.JSONEq(t, `{"n":1}`, string(c.Structured))
	assert.Empty(t, c.Truncated)
}

func TestToolNamesAreSanitizedOrRefused(t *testing.T) {
	for mcpName, want := range map[string]string{
		"get_file":      "kv__get_file",
		"Get-File":      "kv__get_file",
		"repo.search.2": "kv__repo_search_2",
		"_x_":           "kv__x",
	} {
		got, err := toolName("kv", mcpName)
		require.NoError(t, err, mcpName)
		assert.Equal(t, want, got, mcpName)
	}
	for _, mcpName := range []string{"", "___", "a b", "naïve", "x\ny", strings.Repeat("a", 61), strings.Repeat("a", 129)} {
		_, err := toolName("kv", mcpName)
		assert.Error(t, err, "%q", mcpName)
	}
}
