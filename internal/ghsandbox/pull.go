package ghsandbox

import (
	"fmt"
	"time"
)

// PullFacts is what the sandbox knows of a pull request.
type PullFacts struct {
	Number       int
	Title        string
	Body         string
	Author       string
	State        string
	HeadRef      string
	HeadSHA      string
	BaseRef      string
	BaseSHA      string
	CreatedAt    time.Time
	UpdatedAt    time.Time
	Comments     int
	Additions    int
	Deletions    int
	ChangedFiles int
	Labels       []LabelFacts
}

// PullRequest is GitHub's pull-request, the answer of GET .../pulls/{number}.
type PullRequest struct {
	URL                 string     `json:"url"`
	ID                  int64      `json:"id"`
	NodeID              string     `json:"node_id"`
	HTMLURL             string     `json:"html_url"`
	DiffURL             string     `json:"diff_url"`
	PatchURL            string     `json:"patch_url"`
	IssueURL            string     `json:"issue_url"`
	CommitsURL          string     `json:"commits_url"`
	ReviewCommentsURL   string     `json:"review_comments_url"`
	ReviewCommentURL    string     `json:"review_comment_url"`
	CommentsURL         string     `json:"comments_url"`
	StatusesURL         string     `json:"statuses_url"`
	Number              int        `json:"number"`
	State               string     `json:"state"`
	Locked              bool       `json:"locked"`
	Title               string     `json:"title"`
	User                User       `json:"user"`
	Body                *string    `json:"body"`
	Labels              []Label    `json:"labels"`
	Milestone           any        `json:"milestone"` // the sandbox has no milestones: null
	CreatedAt           time.Time  `json:"created_at"`
	UpdatedAt           time.Time  `json:"updated_at"`
	ClosedAt            *time.Time `json:"closed_at"`
	MergedAt            *time.Time `json:"merged_at"`
	MergeCommitSHA      *string    `json:"merge_commit_sha"`
	Assignee            *User      `json:"assignee"`
	Assignees           []User     `json:"assignees"`
	RequestedReviewers  []User     `json:"requested_reviewers"`
	RequestedTeams      []any      `json:"requested_teams"`
	Head                Branch     `json:"head"`
	Base                Branch     `json:"base"`
	Links               PullLinks  `json:"_links"`
	AuthorAssociation   string     `json:"author_association"`
	AutoMerge           any        `json:"auto_merge"` // never enabled: null
	Draft               bool       `json:"draft"`
	Merged              bool       `json:"merged"`
	Mergeable           *bool      `json:"mergeable"`
	MergeableState      string     `json:"mergeable_state"`
	MergedBy            *User      `json:"merged_by"`
	Comments            int        `json:"comments"`
	ReviewComments      int        `json:"review_comments"`
	MaintainerCanModify bool       `json:"maintainer_can_modify"`
	Commits             int        `json:"commits"`
	Additions           int        `json:"additions"`
	Deletions           int        `json:"deletions"`
	ChangedFiles        int        `json:"changed_files"`
}

// Branch is a pull request's head or base.
type Branch struct {
	Label string     `json:"label"`
	Ref   string     `json:"ref"`
	Repo  Repository `json:"repo"`
	SHA   string     `json:"sha"`
	User  User       `json:"user"`
}

// Link is one entry of _links.
type Link struct {
	Href string `json:"href"`
}

// PullLinks is a pull request's _links.
type PullLinks struct {
	Self           Link `json:"self"`
	HTML           Link `json:"html"`
	Issue          Link `json:"issue"`
	Comments       Link `json:"comments"`
	ReviewComments Link `json:"review_comments"`
	ReviewComment  Link `json:"review_comment"`
	Commits        Link `json:"commits"`
	Statuses       Link `json:"statuses"`
}

// NewPullRequest is pull as GitHub answers it; openIssues is the
// repository's open issue count its head and base repository carry.
func NewPullRequest(b Bases, repo RepoRef, pull PullFacts, openIssues int) PullRequest {
	id := StableID(fmt.Sprintf("pull:%s#%d", repo.Full(), pull.Number))
	self := fmt.Sprintf("%s/pulls/%d", b.repoAPI(repo), pull.Number)
	issue := fmt.Sprintf("%s/issues/%d", b.repoAPI(repo), pull.Number)
	html := fmt.Sprintf("%s/pull/%d", b.repoWeb(repo), pull.Number)
	statuses := b.repoAPI(repo) + "/statuses/" + pull.HeadSHA
	repository := NewRepository(b, repo, openIssues)
	branch := func(ref, sha string) Branch {
		return Branch{Label: repo.Owner + ":" + ref, Ref: ref, Repo: repository, SHA: sha, User: repository.Owner}
	}
	// GitHub computes mergeability in the background; the sandbox's pull
	// requests have no conflicts, so it has always finished.
	mergeable := true
	return PullRequest{
		URL:                self,
		ID:                 id,
		NodeID:             NodeID("PR", id),
		HTMLURL:            html,
		DiffURL:            html + ".diff",
		PatchURL:           html + ".patch",
		IssueURL:           issue,
		CommitsURL:         self + "/commits",
		ReviewCommentsURL:  self + "/comments",
		ReviewCommentURL:   b.repoAPI(repo) + "/pulls/comments{/number}",
		CommentsURL:        issue + "/comments",
		StatusesURL:        statuses,
		Number:             pull.Number,
		State:              pull.State,
		Title:              pull.Title,
		User:               NewUser(b, pull.Author),
		Body:               &pull.Body,
		Labels:             NewLabels(b, repo, pull.Labels),
		CreatedAt:          pull.CreatedAt.UTC(),
		UpdatedAt:          pull.UpdatedAt.UTC(),
		Assignees:          []User{},
		RequestedReviewers: []User{},
		RequestedTeams:     []any{},
		Head:               branch(pull.HeadRef, pull.HeadSHA),
		Base:               branch(pull.BaseRef, pull.BaseSHA),
		Links: PullLinks{
			Self: Link{self}, HTML: Link{html}, Issue: Link{issue}, Comments: Link{issue + "/comments"},
			ReviewComments: Link{self + "/comments"}, ReviewComment: Link{b.repoAPI(repo) + "/pulls/comments{/number}"},
			Commits: Link{self + "/commits"}, Statuses: Link{statuses},
		},
		AuthorAssociation:   "CONTRIBUTOR",
		Mergeable:           &mergeable,
		MergeableState:      "clean",
		Comments:            pull.Comments,
		MaintainerCanModify: false,
		Commits:             1,
		Additions:           pull.Additions,
		Deletions:           pull.Deletions,
		ChangedFiles:        pull.ChangedFiles,
	}
}

// DiffEntry is one file of GET .../pulls/{number}/files.
type DiffEntry struct {
	SHA         *string `json:"sha"`
	Filename    string  `json:"filename"`
	Status      string  `json:"status"`
	Additions   int     `json:"additions"`
	Deletions   int     `json:"deletions"`
	Changes     int     `json:"changes"`
	BlobURL     string  `json:"blob_url"`
	RawURL      string  `json:"raw_url"`
	ContentsURL string  `json:"contents_url"`
	// Patch is left out of a binary or too large file, as GitHub does.
	Patch string `json:"patch,omitempty"`
}

// FileFacts is what the sandbox knows of a changed file.
type FileFacts struct {
	Filename  string
	Status    string
	Patch     string
	BlobSHA   string
	Additions int
	Deletions int
}

// NewDiffEntry is a changed file of a pull request whose head is headSHA.
func NewDiffEntry(b Bases, repo RepoRef, headSHA string, f FileFacts) DiffEntry {
	return DiffEntry{
		SHA:         &f.BlobSHA,
		Filename:    f.Filename,
		Status:      f.Status,
		Additions:   f.Additions,
		Deletions:   f.Deletions,
		Changes:     f.Additions + f.Deletions,
		BlobURL:     fmt.Sprintf("%s/blob/%s/%s", b.repoWeb(repo), headSHA, f.Filename),
		RawURL:      fmt.Sprintf("%s/raw/%s/%s", b.repoWeb(repo), headSHA, f.Filename),
		ContentsURL: fmt.Sprintf("%s/contents/%s?ref=%s", b.repoAPI(repo), f.Filename, headSHA),
		Patch:       f.Patch,
	}
}
