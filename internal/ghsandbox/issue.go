package ghsandbox

import (
	"cmp"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"
)

// LabelFacts is a repository label as the sandbox keeps it.
type LabelFacts struct {
	Name        string  `json:"name"`
	Color       string  `json:"color"`
	Description *string `json:"description"`
}

// Label is GitHub's label.
type Label struct {
	ID          int64   `json:"id"`
	NodeID      string  `json:"node_id"`
	URL         string  `json:"url"`
	Name        string  `json:"name"`
	Description *string `json:"description"`
	Color       string  `json:"color"`
	Default     bool    `json:"default"`
}

// NewLabel is one of repo's labels; its ID follows from its name, which
// GitHub matches case-insensitively.
func NewLabel(b Bases, repo RepoRef, l LabelFacts) Label {
	id := StableID("label:" + strings.ToLower(repo.Full()+":"+l.Name))
	return Label{
		ID:          id,
		NodeID:      NodeID("LA", id),
		URL:         b.repoAPI(repo) + "/labels/" + url.PathEscape(l.Name),
		Name:        l.Name,
		Description: l.Description,
		Color:       l.Color,
	}
}

// NewLabels is a list of labels; an empty one is [], never null.
func NewLabels(b Bases, repo RepoRef, labels []LabelFacts) []Label {
	out := make([]Label, 0, len(labels))
	for _, l := range labels {
		out = append(out, NewLabel(b, repo, l))
	}
	return out
}

// IssueFacts is what the sandbox knows of an issue, or of a pull request
// seen as the issue GitHub also makes of it.
type IssueFacts struct {
	Number    int
	Title     string
	Body      string
	Author    string
	State     string
	CreatedAt time.Time
	UpdatedAt time.Time
	Comments  int
	Labels    []LabelFacts
	IsPull    bool
}

// Issue is GitHub's issue.
type IssueJSON struct {
	ID                int64         `json:"id"`
	NodeID            string        `json:"node_id"`
	URL               string        `json:"url"`
	RepositoryURL     string        `json:"repository_url"`
	LabelsURL         string        `json:"labels_url"`
	CommentsURL       string        `json:"comments_url"`
	EventsURL         string        `json:"events_url"`
	HTMLURL           string        `json:"html_url"`
	Number            int           `json:"number"`
	State             string        `json:"state"`
	StateReason       *string       `json:"state_reason"`
	Title             string        `json:"title"`
	Body              *string       `json:"body"`
	User              User          `json:"user"`
	Labels            []Label       `json:"labels"`
	Assignee          *User         `json:"assignee"`
	Assignees         []User        `json:"assignees"`
	Milestone         any           `json:"milestone"` // the sandbox has no milestones: null
	Locked            bool          `json:"locked"`
	Comments          int           `json:"comments"`
	PullRequest       *IssuePullRef `json:"pull_request,omitempty"`
	ClosedAt          *time.Time    `json:"closed_at"`
	CreatedAt         time.Time     `json:"created_at"`
	UpdatedAt         time.Time     `json:"updated_at"`
	AuthorAssociation string        `json:"author_association"`
}

// IssuePullRef is how an issue says it is a pull request.
type IssuePullRef struct {
	URL      string     `json:"url"`
	HTMLURL  string     `json:"html_url"`
	DiffURL  string     `json:"diff_url"`
	PatchURL string     `json:"patch_url"`
	MergedAt *time.Time `json:"merged_at"`
}

// NewIssue is issue as GitHub answers it.
func NewIssue(b Bases, repo RepoRef, issue IssueFacts) IssueJSON {
	api := fmt.Sprintf("%s/issues/%d", b.repoAPI(repo), issue.Number)
	kind, page := "I", "issues"
	if issue.IsPull {
		kind, page = "PR", "pull"
	}
	id := StableID(fmt.Sprintf("issue:%s#%d", repo.Full(), issue.Number))
	html := fmt.Sprintf("%s/%s/%d", b.repoWeb(repo), page, issue.Number)
	out := IssueJSON{
		ID:                id,
		NodeID:            NodeID(kind, id),
		URL:               api,
		RepositoryURL:     b.repoAPI(repo),
		LabelsURL:         api + "/labels{/name}",
		CommentsURL:       api + "/comments",
		EventsURL:         api + "/events",
		HTMLURL:           html,
		Number:            issue.Number,
		State:             issue.State,
		Title:             issue.Title,
		Body:              &issue.Body,
		User:              NewUser(b, issue.Author),
		Labels:            NewLabels(b, repo, issue.Labels),
		Assignees:         []User{},
		Comments:          issue.Comments,
		CreatedAt:         issue.CreatedAt.UTC(),
		UpdatedAt:         issue.UpdatedAt.UTC(),
		AuthorAssociation: "NONE",
	}
	if issue.IsPull {
		out.PullRequest = &IssuePullRef{
			URL:      fmt.Sprintf("%s/pulls/%d", b.repoAPI(repo), issue.Number),
			HTMLURL:  html,
			DiffURL:  html + ".diff",
			PatchURL: html + ".patch",
		}
	}
	return out
}

// IssueComment is GitHub's issue-comment.
type IssueComment struct {
	ID                int64     `json:"id"`
	NodeID            string    `json:"node_id"`
	URL               string    `json:"url"`
	HTMLURL           string    `json:"html_url"`
	IssueURL          string    `json:"issue_url"`
	Body              string    `json:"body"`
	User              User      `json:"user"`
	CreatedAt         time.Time `json:"created_at"`
	UpdatedAt         time.Time `json:"updated_at"`
	AuthorAssociation string    `json:"author_association"`
}

// CommentFacts is what the sandbox knows of a comment on issue or pull
// request number.
type CommentFacts struct {
	ID        int64
	Number    int
	User      string
	Body      string
	CreatedAt time.Time
	UpdatedAt time.Time // zero: never edited
}

// NewIssueComment is a comment as GitHub answers it; its html_url leads to
// the sandbox's page of the pull request.
func NewIssueComment(b Bases, repo RepoRef, c CommentFacts) IssueComment {
	updated := c.CreatedAt
	if c.UpdatedAt.After(updated) {
		updated = c.UpdatedAt
	}
	return IssueComment{
		ID:                c.ID,
		NodeID:            NodeID("IC", c.ID),
		URL:               fmt.Sprintf("%s/issues/comments/%d", b.repoAPI(repo), c.ID),
		HTMLURL:           fmt.Sprintf("%s/pull/%d#issuecomment-%d", b.repoWeb(repo), c.Number, c.ID),
		IssueURL:          fmt.Sprintf("%s/issues/%d", b.repoAPI(repo), c.Number),
		Body:              c.Body,
		User:              NewUser(b, c.User),
		CreatedAt:         c.CreatedAt.UTC(),
		UpdatedAt:         updated.UTC(),
		AuthorAssociation: "NONE",
	}
}

// IssueQuery is what GET /repos/{owner}/{repo}/issues filters and sorts by.
type IssueQuery struct {
	state, creator, sort string
	ascending            bool
	// labels must all be on an issue for it to be listed.
	labels []string
}

// ParseIssueQuery refuses values GitHub does not know, naming the parameter.
func ParseIssueQuery(q url.Values) (IssueQuery, *ValidationError) {
	iq := IssueQuery{creator: q.Get("creator")}
	if raw := q.Get("labels"); raw != "" {
		iq.labels = strings.Split(raw, ",")
	}
	var direction string
	for _, p := range []struct {
		name    string
		into    *string
		allowed []string // the first is the default
	}{
		{"state", &iq.state, []string{"open", "closed", "all"}},
		{"sort", &iq.sort, []string{"created", "updated", "comments"}},
		{"direction", &direction, []string{"desc", "asc"}},
	} {
		*p.into = cmp.Or(q.Get(p.name), p.allowed[0])
		if !slices.Contains(p.allowed, *p.into) {
			return IssueQuery{}, &ValidationError{Resource: resourceIssue, Field: p.name, Code: "invalid"}
		}
	}
	iq.ascending = direction == "asc"
	return iq, nil
}

// Matches reports whether the query lists f.
func (iq IssueQuery) Matches(f IssueFacts) bool {
	if iq.state != "all" && f.State != iq.state || iq.creator != "" && !strings.EqualFold(f.Author, iq.creator) {
		return false
	}
	for _, want := range iq.labels {
		if !slices.ContainsFunc(f.Labels, func(l LabelFacts) bool { return strings.EqualFold(l.Name, strings.TrimSpace(want)) }) {
			return false
		}
	}
	return true
}

// Compare orders issues as the query sorts them; equal ones by number.
func (iq IssueQuery) Compare(a, b IssueFacts) int {
	var c int
	switch iq.sort {
	case "updated":
		c = a.UpdatedAt.Compare(b.UpdatedAt)
	case "comments":
		c = cmp.Compare(a.Comments, b.Comments)
	default:
		c = a.CreatedAt.Compare(b.CreatedAt)
	}
	if c == 0 {
		c = cmp.Compare(a.Number, b.Number)
	}
	if !iq.ascending {
		c = -c
	}
	return c
}
