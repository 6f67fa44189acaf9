package ghsandbox

import (
	"fmt"
	"time"
)

// ReviewFacts is what the sandbox knows of a pull request review.
type ReviewFacts struct {
	ID       int64
	Number   int
	User     string
	Body     string
	State    string
	CommitID string
	// SubmittedAt is nil for a PENDING review, which GitHub answers without it.
	SubmittedAt *time.Time
}

// Review is GitHub's pull-request-review.
type ReviewJSON struct {
	ID                int64       `json:"id"`
	NodeID            string      `json:"node_id"`
	User              User        `json:"user"`
	Body              string      `json:"body"`
	State             string      `json:"state"`
	HTMLURL           string      `json:"html_url"`
	PullRequestURL    string      `json:"pull_request_url"`
	Links             ReviewLinks `json:"_links"`
	SubmittedAt       *time.Time  `json:"submitted_at,omitempty"`
	CommitID          *string     `json:"commit_id"`
	AuthorAssociation string      `json:"author_association"`
}

// ReviewLinks is a review's _links.
type ReviewLinks struct {
	HTML        Link `json:"html"`
	PullRequest Link `json:"pull_request"`
}

// NewReview is a review as GitHub answers it.
func NewReview(b Bases, repo RepoRef, r ReviewFacts) ReviewJSON {
	html := fmt.Sprintf("%s/pull/%d#pullrequestreview-%d", b.repoWeb(repo), r.Number, r.ID)
	pull := fmt.Sprintf("%s/pulls/%d", b.repoAPI(repo), r.Number)
	return ReviewJSON{
		ID:                r.ID,
		NodeID:            NodeID("PRR", r.ID),
		User:              NewUser(b, r.User),
		Body:              r.Body,
		State:             r.State,
		HTMLURL:           html,
		PullRequestURL:    pull,
		Links:             ReviewLinks{HTML: Link{html}, PullRequest: Link{pull}},
		SubmittedAt:       r.SubmittedAt,
		CommitID:          &r.CommitID,
		AuthorAssociation: "NONE",
	}
}
