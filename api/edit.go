package api

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// DecisionRespond answers a waiting action with feedback instead of a
// decision: the action ends rejected with the feedback as its reason, and
// the model reads it as the reviewer's message and may propose again.
const DecisionRespond = "respond"

// Bounds on what a person may send with a decision. The run checks them
// again: everything a signal carries lands in the history.
const (
	// MaxEditArgsBytes bounds an action's arguments as the snapshot shows
	// them and as an edit may send them; an action whose arguments are
	// larger shows none and cannot be edited.
	MaxEditArgsBytes = 16 << 10
	// MaxFeedbackBytes bounds a respond's feedback.
	MaxFeedbackBytes = 2000
)

// ActionEdit records that a person edited an action's arguments with their
// approval: who, when, and the version the model proposed. The action's
// Args, Preview and ArgsHash are then the edited version's.
type ActionEdit struct {
	By   string      `json:"by"`
	At   time.Time   `json:"at"`
	From ArgsVersion `json:"from"`
}

// ArgsVersion is one version of an action's arguments.
type ArgsVersion struct {
	Args     json.RawMessage `json:"args,omitempty"`
	ArgsHash string          `json:"argsHash"`
	Preview  string          `json:"preview"`
}

// feedbackResultPrefix starts the tool result of an action answered with
// feedback, so that a model (the offline one included) tells it from a
// rejection.
const feedbackResultPrefix = "feedback from "

// FeedbackResult is the tool result the model reads for an action a person
// answered with feedback: nothing was done, and who said what.
func FeedbackResult(who, feedback string) string {
	return fmt.Sprintf("%s%s (nothing was done; you may propose again): %s", feedbackResultPrefix, who, feedback)
}

// ParseFeedbackResult reads a FeedbackResult back: who and the feedback,
// ok false for any other tool result.
func ParseFeedbackResult(content string) (who, feedback string, ok bool) {
	rest, ok := strings.CutPrefix(content, feedbackResultPrefix)
	if !ok {
		return "", "", false
	}
	who, feedback, ok = strings.Cut(rest, " (nothing was done; you may propose again): ")
	return who, feedback, ok
}

// EditedResult is the tool result of an action a person edited before it
// ran: the tool's own result with editedBy added when it is a JSON object,
// else prefixed with who edited it, so that the model knows what ran is not
// what it proposed.
func EditedResult(content, by string) string {
	var fields map[string]json.RawMessage
	if json.Unmarshal([]byte(content), &fields) == nil && fields != nil {
		who, _ := json.Marshal(by)
		fields["editedBy"] = who
		if out, err := json.Marshal(fields); err == nil {
			return string(out)
		}
	}
	return "edited by " + by + " before it ran: " + content
}
