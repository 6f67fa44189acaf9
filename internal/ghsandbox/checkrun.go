package ghsandbox

import (
	"fmt"
	"time"
)

// DocsCreateCheckRun and its siblings are the check runs' documentation links.
const (
	DocsCreateCheckRun = "https://docs.github.com/rest/checks/runs#create-a-check-run"
	DocsUpdateCheckRun = "https://docs.github.com/rest/checks/runs#update-a-check-run"
	DocsListCheckRuns  = "https://docs.github.com/rest/checks/runs#list-check-runs-for-a-git-reference"
)

// GitHub's limits on a check run's requested actions.
const (
	MaxCheckRunActions          = 3
	MaxCheckActionLabel         = 20
	MaxCheckActionDescription   = 40
	MaxCheckActionIdentifier    = 20
	maxCheckOutputSummaryOrText = 65535
	checkStatusCompleted        = "completed"
	checkStatusQueued           = "queued"
	checkFilterAll              = "all"
	checkFilterLatest           = "latest"
	checkRunNodeKind            = "CR"
	checkSuiteIDName            = "check-suite:"
)

// CheckRunAction is one button of a check run (GitHub's "actions").
type CheckRunAction struct {
	Label       string `json:"label"`
	Description string `json:"description"`
	Identifier  string `json:"identifier"`
}

// CheckRunOutput is the title, summary and text a check run shows.
type CheckRunOutput struct {
	Title   *string `json:"title,omitempty"`
	Summary *string `json:"summary,omitempty"`
	Text    *string `json:"text,omitempty"`
}

// CheckRun is a check run held by the sandbox.
type CheckRun struct {
	ID          int64            `json:"id"`
	Name        string           `json:"name"`
	HeadSHA     string           `json:"headSha"`
	ExternalID  string           `json:"externalId"`
	DetailsURL  string           `json:"detailsUrl"`
	Status      string           `json:"status"`
	Conclusion  string           `json:"conclusion,omitempty"`
	StartedAt   time.Time        `json:"startedAt"`
	CompletedAt *time.Time       `json:"completedAt,omitempty"`
	Output      CheckRunOutput   `json:"output"`
	Actions     []CheckRunAction `json:"actions,omitempty"`
	// Updates counts the PATCHes that reached it, for tests of coalescing.
	Updates int `json:"updates"`
	// Shown is every state it was created or updated with, oldest first,
	// as "status[/conclusion]: title [buttons]", for tests and the page.
	Shown []string `json:"shown,omitempty"`
}

// shownAs is how Shown records the check run's state.
func (c CheckRun) shownAs() string {
	state := c.Status
	if c.Conclusion != "" {
		state += "/" + c.Conclusion
	}
	title := ""
	if c.Output.Title != nil {
		title = *c.Output.Title
	}
	out := state + ": " + title
	for _, a := range c.Actions {
		out += " [" + a.Label + "]"
	}
	return out
}

// CheckRunJSON is GitHub's check-run.
type CheckRunJSON struct {
	ID           int64              `json:"id"`
	HeadSHA      string             `json:"head_sha"`
	NodeID       string             `json:"node_id"`
	ExternalID   *string            `json:"external_id"`
	URL          string             `json:"url"`
	HTMLURL      *string            `json:"html_url"`
	DetailsURL   *string            `json:"details_url"`
	Status       string             `json:"status"`
	Conclusion   *string            `json:"conclusion"`
	StartedAt    *time.Time         `json:"started_at"`
	CompletedAt  *time.Time         `json:"completed_at"`
	Output       CheckRunOutputJSON `json:"output"`
	Name         string             `json:"name"`
	CheckSuite   *CheckSuiteRef     `json:"check_suite"`
	App          *struct{}          `json:"app"`
	PullRequests []PullMinimal      `json:"pull_requests"`
}

// CheckRunOutputJSON is a check run's output as GitHub answers it.
type CheckRunOutputJSON struct {
	Title            *string `json:"title"`
	Summary          *string `json:"summary"`
	Text             *string `json:"text"`
	AnnotationsCount int     `json:"annotations_count"`
	AnnotationsURL   string  `json:"annotations_url"`
}

// CheckSuiteRef is a check run's check_suite.
type CheckSuiteRef struct {
	ID int64 `json:"id"`
}

// PullMinimal is GitHub's pull-request-minimal.
type PullMinimal struct {
	ID     int64          `json:"id"`
	Number int            `json:"number"`
	URL    string         `json:"url"`
	Head   PullMinimalEnd `json:"head"`
	Base   PullMinimalEnd `json:"base"`
}

// PullMinimalEnd is the head or base of a PullMinimal.
type PullMinimalEnd struct {
	Ref  string          `json:"ref"`
	SHA  string          `json:"sha"`
	Repo PullMinimalRepo `json:"repo"`
}

// PullMinimalRepo is the repository of a PullMinimalEnd.
type PullMinimalRepo struct {
	ID   int64  `json:"id"`
	URL  string `json:"url"`
	Name string `json:"name"`
}

// CheckRunList is the answer of the list for a ref.
type CheckRunList struct {
	TotalCount int            `json:"total_count"`
	CheckRuns  []CheckRunJSON `json:"check_runs"`
}

// NewCheckRun is a check run as GitHub answers it; pulls are the open pull
// requests whose head is its commit.
func NewCheckRun(b Bases, repo RepoRef, c CheckRun, pulls []PullFacts) CheckRunJSON {
	url := fmt.Sprintf("%s/check-runs/%d", b.repoAPI(repo), c.ID)
	html := fmt.Sprintf("%s/runs/%d", b.repoWeb(repo), c.ID)
	started := c.StartedAt
	out := CheckRunJSON{
		ID:          c.ID,
		HeadSHA:     c.HeadSHA,
		NodeID:      NodeID(checkRunNodeKind, c.ID),
		ExternalID:  &c.ExternalID,
		URL:         url,
		HTMLURL:     &html,
		DetailsURL:  &c.DetailsURL,
		Status:      c.Status,
		StartedAt:   &started,
		CompletedAt: c.CompletedAt,
		Output: CheckRunOutputJSON{
			Title: c.Output.Title, Summary: c.Output.Summary, Text: c.Output.Text,
			AnnotationsURL: url + "/annotations",
		},
		Name:         c.Name,
		CheckSuite:   &CheckSuiteRef{ID: StableID(checkSuiteIDName + repo.Full() + ":" + c.HeadSHA)},
		PullRequests: []PullMinimal{},
	}
	if c.Conclusion != "" {
		out.Conclusion = &c.Conclusion
	}
	repoMin := PullMinimalRepo{ID: StableID("repo:" + repo.Full()), URL: b.repoAPI(repo), Name: repo.Name}
	for _, p := range pulls {
		out.PullRequests = append(out.PullRequests, PullMinimal{
			ID: StableID(fmt.Sprintf("pull:%s#%d", repo.Full(), p.Number)), Number: p.Number,
			URL:  fmt.Sprintf("%s/pulls/%d", b.repoAPI(repo), p.Number),
			Head: PullMinimalEnd{Ref: p.HeadRef, SHA: p.HeadSHA, Repo: repoMin},
			Base: PullMinimalEnd{Ref: p.BaseRef, SHA: p.BaseSHA, Repo: repoMin},
		})
	}
	return out
}
