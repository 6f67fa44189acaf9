// Package wire is what the sandbox's REST answers look like on the wire:
// GitHub's JSON shapes (close enough for go-github to fill every field
// agentrun reads), its error bodies, rate-limit headers and pagination.
// It knows nothing of the sandbox's state; the sandbox fills these in.
package wire

import "time"

// User is a user or bot as GitHub embeds it in other objects.
type User struct {
	Login     string `json:"login"`
	ID        int64  `json:"id"`
	NodeID    string `json:"node_id"`
	HTMLURL   string `json:"html_url"`
	Type      string `json:"type"`
	SiteAdmin bool   `json:"site_admin"`
}

// Repo is a repository as GitHub embeds it in a pull request's branches.
type Repo struct {
	ID            int64  `json:"id"`
	NodeID        string `json:"node_id"`
	Name          string `json:"name"`
	FullName      string `json:"full_name"`
	Owner         User   `json:"owner"`
	Private       bool   `json:"private"`
	HTMLURL       string `json:"html_url"`
	URL           string `json:"url"`
	DefaultBranch string `json:"default_branch"`
}

// Branch is a pull request's head or base.
type Branch struct {
	Label string `json:"label"`
	Ref   string `json:"ref"`
	SHA   string `json:"sha"`
	User  User   `json:"user"`
	Repo  Repo   `json:"repo"`
}

// Pull is GET /repos/{owner}/{repo}/pulls/{number}.
type Pull struct {
	ID                int64     `json:"id"`
	NodeID            string    `json:"node_id"`
	Number            int       `json:"number"`
	URL               string    `json:"url"`
	HTMLURL           string    `json:"html_url"`
	DiffURL           string    `json:"diff_url"`
	IssueURL          string    `json:"issue_url"`
	CommentsURL       string    `json:"comments_url"`
	State             string    `json:"state"`
	Title             string    `json:"title"`
	Body              string    `json:"body"`
	User              User      `json:"user"`
	CreatedAt         time.Time `json:"created_at"`
	UpdatedAt         time.Time `json:"updated_at"`
	Head              Branch    `json:"head"`
	Base              Branch    `json:"base"`
	Draft             bool      `json:"draft"`
	Merged            bool      `json:"merged"`
	Comments          int       `json:"comments"`
	Commits           int       `json:"commits"`
	Additions         int       `json:"additions"`
	Deletions         int       `json:"deletions"`
	ChangedFiles      int       `json:"changed_files"`
	AuthorAssociation string    `json:"author_association"`
}

// File is one entry of GET /repos/{owner}/{repo}/pulls/{number}/files.
type File struct {
	SHA         string `json:"sha"`
	Filename    string `json:"filename"`
	Status      string `json:"status"`
	Additions   int    `json:"additions"`
	Deletions   int    `json:"deletions"`
	Changes     int    `json:"changes"`
	BlobURL     string `json:"blob_url"`
	RawURL      string `json:"raw_url"`
	ContentsURL string `json:"contents_url"`
	Patch       string `json:"patch,omitempty"`
}

// Comment is an issue comment, as listed and as created.
type Comment struct {
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

// Permission is GET /repos/{owner}/{repo}/collaborators/{username}/permission.
type Permission struct {
	Permission string `json:"permission"`
	RoleName   string `json:"role_name"`
	User       User   `json:"user"`
}
