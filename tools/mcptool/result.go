package mcptool

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentrun/agentrun/api"
)

// Bounds on what one call hands the model and the run's history.
const (
	maxText       = 64 << 10
	maxStructured = 64 << 10
	maxErrorText  = 2 << 10
)

// content is what the model reads of a call: the text contents, joined, and
// the structured content when the server sent one.
type content struct {
	Text       string          `json:"text"`
	Structured json.RawMessage `json:"structured,omitempty"`
	// Truncated says what was cut, so the model does not take a part for
	// the whole.
	Truncated string `json:"truncated,omitempty"`
}

// output is a call's result as agentrun's output, and its whole text (for an
// isError result's message).
func output(res *mcp.CallToolResult) (api.ToolOutput, string, error) {
	var parts []string
	for _, c := range res.Content {
		parts = append(parts, contentText(c))
	}
	text := strings.Join(parts, "\n")
	out := content{Text: text}
	var cut []string
	if len(text) > maxText {
		out.Text = api.TruncateUTF8(text, maxText)
		cut = append(cut, fmt.Sprintf("text cut from %d to %d bytes", len(text), len(out.Text)))
	}
	if res.StructuredContent != nil {
		structured, err := json.Marshal(res.StructuredContent)
		if err != nil {
			return api.ToolOutput{}, "", fmt.Errorf("structured content: %w", err)
		}
		if len(structured) > maxStructured {
			cut = append(cut, fmt.Sprintf("structured content of %d bytes left out (more than %d)", len(structured), maxStructured))
		} else {
			out.Structured = structured
		}
	}
	out.Truncated = strings.Join(cut, "; ")
	raw, err := json.Marshal(out)
	if err != nil {
		return api.ToolOutput{}, "", err
	}
	return api.ToolOutput{Content: raw}, text, nil
}

// contentText is a content item as text: what is not text is named, not
// passed on.
func contentText(c mcp.Content) string {
	switch c := c.(type) {
	case *mcp.TextContent:
		return c.Text
	case *mcp.EmbeddedResource:
		if c.Resource != nil && c.Resource.Text != "" {
			return c.Resource.Text
		}
		return "[embedded resource omitted]"
	case *mcp.ResourceLink:
		return fmt.Sprintf("[resource link %s]", c.URI)
	case *mcp.ImageContent:
		return fmt.Sprintf("[%s image omitted]", c.MIMEType)
	case *mcp.AudioContent:
		return fmt.Sprintf("[%s audio omitted]", c.MIMEType)
	default:
		return fmt.Sprintf("[%T content omitted]", c)
	}
}
