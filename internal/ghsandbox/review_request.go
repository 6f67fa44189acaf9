package ghsandbox

import (
	"net/http"
	"strconv"
	"strings"
)

// CreateReviewRequest is the body of POST .../pulls/{number}/reviews.
type CreateReviewRequest struct {
	CommitID string                 `json:"commit_id"`
	Body     *string                `json:"body"`
	Event    string                 `json:"event"`
	Comments []ReviewCommentRequest `json:"comments"`
}

// ReviewCommentRequest is one draft comment of a review: on a line of a
// side of the diff, or at a position counted down the file's patch.
type ReviewCommentRequest struct {
	Path      string `json:"path"`
	Body      string `json:"body"`
	Position  *int   `json:"position,omitempty"`
	Line      *int   `json:"line,omitempty"`
	Side      string `json:"side,omitempty"`
	StartLine *int   `json:"start_line,omitempty"`
	StartSide string `json:"start_side,omitempty"`
}

// reviewStates maps an event to the state of the review it creates; no
// event leaves the review PENDING.
var reviewStates = map[string]string{
	"":                "PENDING",
	"APPROVE":         "APPROVED",
	"REQUEST_CHANGES": "CHANGES_REQUESTED",
	"COMMENT":         "COMMENTED",
}

// ValidationFailedSimple is the 422 of the review endpoints, whose errors
// are plain messages.
func ValidationFailedSimple(docs string, messages ...string) Response {
	return JSON(http.StatusUnprocessableEntity, struct {
		Message          string   `json:"message"`
		Errors           []string `json:"errors"`
		DocumentationURL string   `json:"documentation_url"`
		Status           string   `json:"status"`
	}{"Unprocessable Entity", messages, docs, "422"})
}

// Check applies GitHub's rules to a review of a pull request whose head is
// headSHA and whose patches by file name are patches; it returns the state
// the review gets, or the messages of GitHub's 422. Nothing of a review is
// created when any comment is refused.
func (c CreateReviewRequest) Check(headSHA string, patches map[string]string) (string, []string) {
	state, ok := reviewStates[c.Event]
	if !ok {
		return "", []string{"event must be one of APPROVE, REQUEST_CHANGES, COMMENT, or left out for a pending review"}
	}
	var problems []string
	if c.CommitID != "" && c.CommitID != headSHA {
		problems = append(problems, "Commit could not be resolved: commit_id must be the pull request's head")
	}
	if (c.Event == "REQUEST_CHANGES" || c.Event == "COMMENT") && (c.Body == nil || strings.TrimSpace(*c.Body) == "") {
		problems = append(problems, "Body is required when the event is "+c.Event)
	}
	if _, bad := CheckBody(resourceReview, c.Body, false); bad {
		problems = append(problems, "Body is too long (maximum is 65536 characters)")
	}
	for i, comment := range c.Comments {
		if msg := comment.check(patches); msg != "" {
			problems = append(problems, "comments["+strconv.Itoa(i)+"]: "+msg)
		}
	}
	return state, problems
}

const resourceReview = "PullRequestReview"

func (rc ReviewCommentRequest) check(patches map[string]string) string {
	if strings.TrimSpace(rc.Body) == "" {
		return "Body can't be blank"
	}
	patch, ok := patches[rc.Path]
	if !ok {
		return "Path could not be resolved"
	}
	lines := ParseLines(patch)
	switch {
	case rc.Position != nil && rc.Line != nil:
		return "Give either position or line, not both"
	case rc.Position != nil:
		if *rc.Position < 1 || *rc.Position > lines.Positions {
			return "Position could not be resolved"
		}
		return ""
	case rc.Line == nil:
		return "Line could not be resolved: give line (or position)"
	}
	if !lines.Has(rc.Side, *rc.Line) {
		return "Line could not be resolved"
	}
	if rc.StartLine != nil {
		side := rc.StartSide
		if side == "" {
			side = rc.Side
		}
		if *rc.StartLine >= *rc.Line && side == rc.Side || !lines.Has(side, *rc.StartLine) {
			return "Start line could not be resolved"
		}
	}
	return ""
}
