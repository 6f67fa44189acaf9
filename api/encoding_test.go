package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
)

// The encoding that remembers its messages must give the bytes the digest
// covers, call after call, for a conversation that grows at its end,
// whatever the messages hold (invalid UTF-8, HTML, raw arguments).
func TestConversationEncodingIsCanonicalConversationAsItGrows(t *testing.T) {
	var conversation []Message
	var enc ConversationEncoding
	for i := range 12 {
		conversation = append(conversation,
			Message{Role: RoleUser, Content: fmt.Sprintf("turn %d <b>&</b> \xff\xfe é", i)},
			Message{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: fmt.Sprintf("c%d", i), Name: ToolGetPullRequest, Arguments: json.RawMessage(`{ "a" : 1 }`)}}},
			Message{Role: RoleTool, ToolCallID: fmt.Sprintf("c%d", i), Name: ToolGetPullRequest, Content: "{\"x\":\"\u2028\"}"},
		)
		want, err := CanonicalConversation(conversation)
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
	for _, short := range [][]Message{conversation[:1], nil} {
		want, _ := CanonicalConversation(short)
		if got, err := enc.Canonical(short); err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%d messages: got %s (%v), want %s", len(short), got, err, want)
		}
	}
}
