package api

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// ActionState is the state of a PendingAction.
type ActionState string

// Action states.
const (
	ActionWaiting  ActionState = "waiting"
	ActionApproved ActionState = "approved"
	ActionRejected ActionState = "rejected"
	ActionExpired  ActionState = "expired"
)

// PendingAction is a gated action waiting for (or decided by) a person.
type PendingAction struct {
	ID        string          `json:"id"`
	StepID    string          `json:"stepId"`
	ToolName  string          `json:"toolName"`
	SafeInput json.RawMessage `json:"safeInput"`
	// Preview is the exact text the person approves, as the action's tool
	// renders it (tools.Action.Preview): a comment's body, a message's
	// channel and text, a request line and body.
	Preview string `json:"preview"`
	// Target is what the action changes, as its tool names it
	// (tools.Action.Touches): "acme/widgets#1", "#releases", a host and path.
	Target      string      `json:"target"`
	ArgsHash    string      `json:"argsHash"` // sha256 of the canonical input
	State       ActionState `json:"state"`
	RequestedBy string      `json:"requestedBy"`
	Approvers   []string    `json:"approvers,omitempty"`
	CreatedAt   time.Time   `json:"createdAt"`
	ExpiresAt   time.Time   `json:"expiresAt"`
	DecidedBy   string      `json:"decidedBy,omitempty"`
	Reason      string      `json:"reason,omitempty"`
	DecidedAt   *time.Time  `json:"decidedAt,omitempty"`
	// RequestKeys are the RequestKey of every decision already applied or
	// refused, so that a repeated request is recognised.
	RequestKeys []string `json:"requestKeys,omitempty"`
	// Words are the action's tool's (ToolSpec.Words), so that a page says
	// "approve creating a ticket" from the action alone. The workflow fills
	// them in (ToolWords.Or); WordsOf reads a nil as the tool name's defaults.
	Words *ToolWords `json:"words,omitempty"`
	// Args are the action's arguments (canonical JSON), so that a client
	// may edit them; empty when larger than MaxEditArgsBytes. After an
	// edit they are the edited ones, and Edit says who edited what.
	Args json.RawMessage `json:"args,omitempty"`
	// Editable: the agent lets an approver edit Args with the approval.
	Editable bool        `json:"editable,omitempty"`
	Edit     *ActionEdit `json:"edit,omitempty"`
	// ArgsSchema is the tool's argument schema (ToolSpec.Parameters), for
	// the edit form of an Editable action; empty when larger than
	// MaxArgsSchemaBytes.
	ArgsSchema json.RawMessage `json:"argsSchema,omitempty"`
	// PreviewKind says how a page shows Preview (ToolSpec.PreviewKind).
	PreviewKind PreviewKind `json:"previewKind,omitempty"`
	// Feedback: the action was answered with feedback (DecisionRespond),
	// which is its Reason.
	Feedback bool `json:"feedback,omitempty"`
	// Caution names the actions on the same target whose effect may exist
	// though nobody saw it (InDoubtAction.Caution), for whoever decides:
	// approving this one may do the same thing twice.
	Caution string `json:"caution,omitempty"`
}

// ActionIDPrefix starts every action ID: the workflow makes act-<16 hex>
// (ActionID).
const ActionIDPrefix = "act-"

// MaxActionIDLength bounds an action ID, wherever it comes from.
const MaxActionIDLength = 64

// ValidActionID is the rule for an action ID, wherever it comes from (a
// path, a GitHub comment): its alphabet cannot break out of the quotes of a
// visibility query.
func ValidActionID(id string) bool {
	rest, ok := strings.CutPrefix(id, ActionIDPrefix)
	if !ok || rest == "" || len(id) > MaxActionIDLength {
		return false
	}
	for i := 0; i < len(rest); i++ {
		c := rest[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '_', c == '-':
		default:
			return false
		}
	}
	return true
}

// ActionID is derived from the execution chain and the step: the workflow ID,
// the first run ID of the chain (continue-as-new keeps it, so a carried action
// keeps its ID) and the step's sequence. The first run ID makes it unique even
// when a workflow ID is reused after retention, so that a decision meant for
// an old run can never match an action of a new one.
func ActionID(workflowID, firstRunID string, seq int) string {
	return ActionIDPrefix + sha256Hex([]byte(fmt.Sprintf("%s:%s:%d", workflowID, firstRunID, seq)))[:16]
}

// ToolArgsHash binds an approval to one call of a registered tool: sha256
// of the target, the tool and the call's canonical arguments.
func ToolArgsHash(target Target, tool string, args json.RawMessage) string {
	canonical, _ := json.Marshal(struct {
		Target Target          `json:"target"`
		Tool   string          `json:"tool"`
		Args   json.RawMessage `json:"args"`
	}{target, tool, args})
	return sha256Hex(canonical)
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
