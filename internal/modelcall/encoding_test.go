package modelcall

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/agentrun/agentrun/api"
)

// The encoding that remembers its messages must give the bytes the digest
// covers, call after call, for a conversation that grows at its end,
// whatever the messages hold (invalid UTF-8, HTML, raw arguments).
func TestConversationEncodingIsCanonicalConversationAsItGrows(t *testing.T) {
	var conversation []api.Message
	var enc Encoding
	for i := range 12 {
		conversation = append(conversation,
			api.Message{Role: api.RoleUser, Content: fmt.Sprintf("turn %d <b>&</b> \xff\xfe é", i)},
			api.Message{Role: api.RoleAssistant, ToolCalls: []api.ToolCall{{ID: fmt.Sprintf("c%d", i), Name: api.ToolGetPullRequest, Arguments: json.RawMessage(`{ "a" : 1 }`)}}},
			api.Message{Role: api.RoleTool, ToolCallID: fmt.Sprintf("c%d", i), Name: api.ToolGetPullRequest, Content: "{\"x\":\"\u2028\"}"},
		)
		want, err := api.CanonicalConversation(conversation)
		if err != nil {
			t.Fatal(err)
		}
		got, err := enc.Canonical(conversation)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("after %d messages:\n got %s\nwant %s", len(conversation), got, want)
		}
	}
	for _, short := range [][]api.Message{conversation[:1], nil} {
		want, _ := api.CanonicalConversation(short)
		if got, err := enc.Canonical(short); err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%d messages: got %s (%v), want %s", len(short), got, err, want)
		}
	}
}
