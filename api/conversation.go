package api

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"
)

// Role of a conversation message.
type Role string

// Roles.
const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// Message is one entry of the conversation history: what the model sees next.
// It follows the shape of tool-calling chat APIs so that a real LLM provider
// maps onto it one to one.
type Message struct {
	Role       Role       `json:"role"`
	Content    string     `json:"content,omitempty"`
	ToolCalls  []ToolCall `json:"toolCalls,omitempty"`
	ToolCallID string     `json:"toolCallId,omitempty"`
	Name       string     `json:"name,omitempty"`
}

// ToolCall is one tool invocation the model asked for.
type ToolCall struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// ToolSpec describes a tool offered to the model.
type ToolSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"` // JSON schema
	// SideEffect marks a tool that changes the outside world: it is gated by
	// approval and runs under an operationKey.
	SideEffect bool `json:"sideEffect"`
	// Words say what an action does, for people (ToolWords); empty parts
	// come from the tool's name. They never go to a model.
	Words ToolWords `json:"-"`
	// PreviewKind says how a page shows the action's preview beside its
	// exact bytes; empty is plain text. It never goes to a model.
	PreviewKind PreviewKind `json:"-"`
	// ProcessingLimit is how long the external system may go on with a
	// request of this action after its client has gone. A run sends an
	// attempt again only once the earlier attempt's deadline and this much
	// more have passed (ResendMargin). Zero means DefaultProcessingLimit
	// (GitHub's documented 10 s); a tool whose system may work longer, or
	// documents no limit, says so.
	ProcessingLimit time.Duration `json:"-"`
}

// DefaultProcessingLimit is an action's ProcessingLimit when its tool
// declares none: GitHub's documented limit on processing one request.
const DefaultProcessingLimit = 10 * time.Second

// maxClockSkew is how far behind the server's clock the clock of the
// worker that enforces an attempt's deadline may run.
const maxClockSkew = 2 * time.Second

// ResendMargin is how long past an attempt's deadline a request of it may
// still land: the system's processing limit, and the worker's clock, which
// enforces the deadline, running behind the server's.
func (s ToolSpec) ResendMargin() time.Duration {
	limit := s.ProcessingLimit
	if limit <= 0 {
		limit = DefaultProcessingLimit
	}
	return limit + maxClockSkew
}

// Usage counts the tokens of one model call.
type Usage struct {
	PromptTokens     int64 `json:"promptTokens"`
	CompletionTokens int64 `json:"completionTokens"`
}

// ModelDecision is what the model answers, the result of ActivityModelNext:
// either a final answer or tool calls.
type ModelDecision struct {
	Final string `json:"final,omitempty"`
	// Undone, on a final answer, says the model could not do what the run
	// asked (it could not read what its task needs): the run completes
	// with OutcomeNotDone, never as done. The run decides on this field,
	// never on Final's text.
	Undone    bool       `json:"undone,omitempty"`
	ToolCalls []ToolCall `json:"toolCalls,omitempty"`
	Usage     Usage      `json:"usage"`
	Model     string     `json:"model,omitempty"`
	// Local is set by a worker whose model answers at once and writes
	// nothing as it thinks (the offline models: no heartbeat details to
	// show): the run's next model call may then be a local activity.
	// Absent, as from a streaming or slow model or a worker of an older
	// build, the next call is an activity the server schedules.
	Local bool `json:"local,omitempty"`
}

// ModelInput is the input of ActivityModelNext. It carries the conversation
// inline, or, once that grows large, a Ref the activity resolves.
type ModelInput struct {
	Conversation []Message  `json:"conversation"`
	Tools        []ToolSpec `json:"tools"`
	// Agent, when set, stands for Tools: the activity offers that agent's
	// tools from its worker's registry, the one the workflow checks calls
	// against, so that no call records the schemas again.
	Agent string `json:"agent,omitempty"`
	// PostsWithoutAsking, with Agent, is the run's RunInput.PostsWithoutAsking:
	// the agent's tools are then described as running at once, since no
	// call of that run waits for a person.
	PostsWithoutAsking string `json:"postsWithoutAsking,omitempty"`
	// Ref, when set, stands for the conversation: Conversation is then empty.
	Ref *ConversationRef `json:"ref,omitempty"`
}

// ConversationRef names a run's conversation without carrying it, so that a
// ModelNext input stays the same size however long the conversation grows.
// The digest makes the reference content-addressed: the activity proves it
// got exactly the messages the workflow meant.
type ConversationRef struct {
	// RunID is the run (the workflow ID) whose conversation query answers.
	RunID string `json:"runId"`
	// Length is how many messages, from the first, the model sees.
	Length int `json:"length"`
	// Digest is the sha256, in hex, of CanonicalConversation of those messages.
	Digest string `json:"digest"`
}

// CanonicalConversation is the byte form a ConversationRef's digest covers:
// the messages' JSON once they have made one JSON round trip themselves.
// encoding/json writes struct fields in declaration order and compacts raw
// arguments, but it escapes invalid UTF-8 as \ufffd on the first encoding and
// writes the decoded U+FFFD as is on the next; after one round trip the bytes
// are a fixed point, so the workflow (before its query encodes the messages)
// and the activity (after) arrive at the same digest.
func CanonicalConversation(messages []Message) ([]byte, error) {
	first, err := json.Marshal(messages)
	if err != nil {
		return nil, fmt.Errorf("encode conversation: %w", err)
	}
	var decoded []Message
	if err := json.Unmarshal(first, &decoded); err != nil {
		return nil, fmt.Errorf("decode conversation: %w", err)
	}
	canonical, err := json.Marshal(decoded)
	if err != nil {
		return nil, fmt.Errorf("encode conversation: %w", err)
	}
	return canonical, nil
}

// ConversationDigest is the sha256, in hex, of a canonical conversation.
func ConversationDigest(canonical []byte) string {
	sum := sha256.Sum256(canonical)
	return hex.EncodeToString(sum[:])
}
