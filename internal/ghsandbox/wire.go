package ghsandbox

import (
	"crypto/sha1"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"hash/fnv"
	"net/http"
	"strings"
	"time"
)

// The JSON shapes below follow GitHub's REST responses closely enough for
// go-github to fill every field agentrun reads.

type userJSON struct {
	Login     string `json:"login"`
	ID        int64  `json:"id"`
	NodeID    string `json:"node_id"`
	HTMLURL   string `json:"html_url"`
	Type      string `json:"type"`
	SiteAdmin bool   `json:"site_admin"`
}

type repoJSON struct {
	ID            int64    `json:"id"`
	NodeID        string   `json:"node_id"`
	Name          string   `json:"name"`
	FullName      string   `json:"full_name"`
	Owner         userJSON `json:"owner"`
	Private       bool     `json:"private"`
	HTMLURL       string   `json:"html_url"`
	URL           string   `json:"url"`
	DefaultBranch string   `json:"default_branch"`
}

type branchJSON struct {
	Label string   `json:"label"`
	Ref   string   `json:"ref"`
	SHA   string   `json:"sha"`
	User  userJSON `json:"user"`
	Repo  repoJSON `json:"repo"`
}

type pullJSON struct {
	ID                int64      `json:"id"`
	NodeID            string     `json:"node_id"`
	Number            int        `json:"number"`
	URL               string     `json:"url"`
	HTMLURL           string     `json:"html_url"`
	DiffURL           string     `json:"diff_url"`
	IssueURL          string     `json:"issue_url"`
	CommentsURL       string     `json:"comments_url"`
	State             string     `json:"state"`
	Title             string     `json:"title"`
	Body              string     `json:"body"`
	User              userJSON   `json:"user"`
	CreatedAt         time.Time  `json:"created_at"`
	UpdatedAt         time.Time  `json:"updated_at"`
	Head              branchJSON `json:"head"`
	Base              branchJSON `json:"base"`
	Draft             bool       `json:"draft"`
	Merged            bool       `json:"merged"`
	Comments          int        `json:"comments"`
	Commits           int        `json:"commits"`
	Additions         int        `json:"additions"`
	Deletions         int        `json:"deletions"`
	ChangedFiles      int        `json:"changed_files"`
	AuthorAssociation string     `json:"author_association"`
}

type fileJSON struct {
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

type commentJSON struct {
	ID                int64     `json:"id"`
	NodeID            string    `json:"node_id"`
	URL               string    `json:"url"`
	HTMLURL           string    `json:"html_url"`
	IssueURL          string    `json:"issue_url"`
	Body              string    `json:"body"`
	User              userJSON  `json:"user"`
	CreatedAt         time.Time `json:"created_at"`
	UpdatedAt         time.Time `json:"updated_at"`
	AuthorAssociation string    `json:"author_association"`
}

type permissionJSON struct {
	Permission string   `json:"permission"`
	RoleName   string   `json:"role_name"`
	User       userJSON `json:"user"`
}

// stableID derives a GitHub-like numeric ID from a name, so that the same
// fixture always yields the same IDs.
func stableID(name string) int64 {
	h := fnv.New32a()
	_, _ = h.Write([]byte(name))
	return int64(h.Sum32()%900000000) + 100000000
}

func nodeID(kind string, id int64) string {
	return kind + "_" + base64.RawURLEncoding.EncodeToString(fmt.Appendf(nil, "%d", id))
}

func userView(r *http.Request, login string) userJSON {
	id := stableID("user:" + login)
	kind := "User"
	if strings.HasSuffix(login, "[bot]") {
		kind = "Bot"
	}
	return userJSON{
		Login:   login,
		ID:      id,
		NodeID:  nodeID("U", id),
		HTMLURL: webBase(r) + "/" + login,
		Type:    kind,
	}
}

func repoView(r *http.Request, repo repoInfo) repoJSON {
	full := repo.owner + "/" + repo.name
	id := stableID("repo:" + full)
	return repoJSON{
		ID:            id,
		NodeID:        nodeID("R", id),
		Name:          repo.name,
		FullName:      full,
		Owner:         userView(r, repo.owner),
		HTMLURL:       webBase(r) + "/" + full,
		URL:           apiBase(r) + "/repos/" + full,
		DefaultBranch: repo.defaultBranch,
	}
}

func pullView(r *http.Request, repo repoInfo, pull pullState) pullJSON {
	full := repo.owner + "/" + repo.name
	id := stableID(fmt.Sprintf("pull:%s#%d", full, pull.Number))
	issueURL := fmt.Sprintf("%s/repos/%s/issues/%d", apiBase(r), full, pull.Number)
	htmlURL := fmt.Sprintf("%s/%s/pull/%d", webBase(r), full, pull.Number)
	branch := func(ref, sha string) branchJSON {
		return branchJSON{Label: repo.owner + ":" + ref, Ref: ref, SHA: sha, User: userView(r, repo.owner), Repo: repoView(r, repo)}
	}
	return pullJSON{
		ID:                id,
		NodeID:            nodeID("PR", id),
		Number:            pull.Number,
		URL:               fmt.Sprintf("%s/repos/%s/pulls/%d", apiBase(r), full, pull.Number),
		HTMLURL:           htmlURL,
		DiffURL:           htmlURL + ".diff",
		IssueURL:          issueURL,
		CommentsURL:       issueURL + "/comments",
		State:             pull.State,
		Title:             pull.Title,
		Body:              pull.Body,
		User:              userView(r, pull.Author),
		CreatedAt:         pull.CreatedAt.UTC(),
		UpdatedAt:         lastActivity(pull),
		Head:              branch(pull.HeadRef, pull.HeadSHA),
		Base:              branch(pull.BaseRef, pull.BaseSHA),
		Comments:          len(pull.comments),
		Commits:           1,
		Additions:         pull.additions,
		Deletions:         pull.deletions,
		ChangedFiles:      len(pull.Files),
		AuthorAssociation: "CONTRIBUTOR",
	}
}

func lastActivity(pull pullState) time.Time {
	updated := pull.CreatedAt.UTC()
	if n := len(pull.comments); n > 0 && pull.comments[n-1].CreatedAt.After(updated) {
		updated = pull.comments[n-1].CreatedAt
	}
	return updated
}

func fileView(r *http.Request, repo repoInfo, pull pullState, f FixtureFile) fileJSON {
	full := repo.owner + "/" + repo.name
	add, del := countPatchLines(f.Patch)
	return fileJSON{
		SHA:         blobSHA(f),
		Filename:    f.Filename,
		Status:      f.Status,
		Additions:   add,
		Deletions:   del,
		Changes:     add + del,
		BlobURL:     fmt.Sprintf("%s/%s/blob/%s/%s", webBase(r), full, pull.HeadSHA, f.Filename),
		RawURL:      fmt.Sprintf("%s/%s/raw/%s/%s", webBase(r), full, pull.HeadSHA, f.Filename),
		ContentsURL: fmt.Sprintf("%s/repos/%s/contents/%s?ref=%s", apiBase(r), full, f.Filename, pull.HeadSHA),
		Patch:       f.Patch,
	}
}

func blobSHA(f FixtureFile) string {
	sum := sha1.Sum([]byte(f.Filename + "\x00" + f.Patch))
	return hex.EncodeToString(sum[:])
}

func commentView(r *http.Request, repo repoInfo, number int, c Comment) commentJSON {
	full := repo.owner + "/" + repo.name
	return commentJSON{
		ID:                c.ID,
		NodeID:            nodeID("IC", c.ID),
		URL:               fmt.Sprintf("%s/repos/%s/issues/comments/%d", apiBase(r), full, c.ID),
		HTMLURL:           fmt.Sprintf("%s/%s/pull/%d#issuecomment-%d", webBase(r), full, number, c.ID),
		IssueURL:          fmt.Sprintf("%s/repos/%s/issues/%d", apiBase(r), full, number),
		Body:              c.Body,
		User:              userView(r, c.User),
		CreatedAt:         c.CreatedAt,
		UpdatedAt:         c.CreatedAt,
		AuthorAssociation: "NONE",
	}
}
