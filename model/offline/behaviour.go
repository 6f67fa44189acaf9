package offline

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/agentrun/agentrun/api"
)

// behaviour is what the offline model does with a pull request. It follows
// from the tools a model call is offered, never from the prompt: prompts
// carry the user's and the pull request's text, tools are the agent's own
// definition, so the choice is deterministic and cannot be talked into.
type behaviour int

const (
	// commentReview proposes the review as one issue comment (pr-review).
	commentReview behaviour = iota
	// inlineReview proposes one pull request review with inline comments
	// (pr-review over create_pull_request_review).
	inlineReview
	// triage proposes labels and follow-up issues.
	triage
)

// behaviourFor picks the behaviour from the offered tools. The comment tool
// comes first so that a run offered today's tools behaves as it always has;
// a call offered none of the actions reviews and says nothing was posted.
func behaviourFor(tools []api.ToolSpec) behaviour {
	switch {
	case offered(tools, api.ToolCreateIssueComment):
		return commentReview
	case offered(tools, api.ToolCreatePullRequestReview):
		return inlineReview
	case offered(tools, api.ToolAddLabels), offered(tools, api.ToolCreateIssue):
		return triage
	default:
		return commentReview
	}
}

// task names the behaviour in "Could not <task> ..." answers.
func (b behaviour) task() string {
	if b == triage {
		return "triage"
	}
	return "review"
}

// turnCalls numbers one decision's tool calls the way toolCall does, adding
// "_2", "_3", ... to a tool's later calls in the same turn: the conversation
// grows every turn, so the IDs are unique within the run.
type turnCalls struct {
	turn  int
	seen  map[string]int
	calls []api.ToolCall
}

func newTurnCalls(turn int) *turnCalls { return &turnCalls{turn: turn, seen: map[string]int{}} }

func (t *turnCalls) add(name string, args any) error {
	raw, err := json.Marshal(args)
	if err != nil {
		return fmt.Errorf("encode %s arguments: %w", name, err)
	}
	call := toolCall(t.turn, name, raw)
	t.seen[name]++
	if n := t.seen[name]; n > 1 {
		call.ID += "_" + strconv.Itoa(n)
	}
	t.calls = append(t.calls, call)
	return nil
}

// actionResult is what a final answer reports of an action's result. Tools
// answer with JSON on success and with plain text ("rejected by ...",
// "expired: ...", "failed: ...") otherwise; the JSON's shape is each tool's,
// so only the common fields are read.
type actionResult struct {
	// ID names what the action made: an issue number, a review ID.
	ID             string
	URL            string
	AlreadyExisted bool
}

// resultIDFields and resultURLFields are the field names tools use, in the
// order they are preferred.
var (
	resultIDFields  = []string{"number", "issueNumber", "reviewId", "commentId", "id", "externalId"}
	resultURLFields = []string{"htmlUrl", "html_url", "url"}
)

// plainID is an ID a final answer may show as it is.
var plainID = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,40}$`)

// decodeAction reads an action's result; ok is false when the tool answered
// with text, which is why the action did not happen.
func decodeAction(content string) (actionResult, bool) {
	trimmed := strings.TrimSpace(content)
	if strings.HasPrefix(trimmed, "[") && json.Valid([]byte(trimmed)) {
		return actionResult{}, true
	}
	var fields map[string]json.RawMessage
	if !strings.HasPrefix(trimmed, "{") || json.Unmarshal([]byte(trimmed), &fields) != nil {
		return actionResult{}, false
	}
	var res actionResult
	for _, name := range resultIDFields {
		if id := scalarText(fields[name]); plainID.MatchString(id) && id != "0" {
			res.ID = id
			break
		}
	}
	for _, name := range resultURLFields {
		var url string
		if json.Unmarshal(fields[name], &url) == nil && strings.HasPrefix(url, "https://") && !strings.ContainsAny(url, " \n\r") {
			res.URL = clip(url, 300)
			break
		}
	}
	_ = json.Unmarshal(fields["alreadyExisted"], &res.AlreadyExisted)
	return res, true
}

// scalarText is a JSON number or string as text, or "".
func scalarText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return n.String()
	}
	return ""
}
