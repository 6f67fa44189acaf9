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

	"github.com/agentrun/agentrun/internal/ghsandbox/wire"
	"github.com/google/go-github/v62/github"
)

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

// The views are go-github's own types, so that the JSON the sandbox answers
// has exactly the names go-github fills agentrun's reads from.

func userView(r *http.Request, login string) *github.User {
	id := stableID("user:" + login)
	kind := "User"
	if strings.HasSuffix(login, "[bot]") {
		kind = "Bot"
	}
	return &github.User{
		Login:     github.String(login),
		ID:        github.Int64(id),
		NodeID:    github.String(nodeID("U", id)),
		HTMLURL:   github.String(wire.WebBase(r) + "/" + login),
		Type:      github.String(kind),
		SiteAdmin: github.Bool(false),
	}
}

func repoView(r *http.Request, repo repoInfo) *github.Repository {
	full := repo.owner + "/" + repo.name
	id := stableID("repo:" + full)
	return &github.Repository{
		ID:            github.Int64(id),
		NodeID:        github.String(nodeID("R", id)),
		Name:          github.String(repo.name),
		FullName:      github.String(full),
		Owner:         userView(r, repo.owner),
		Private:       github.Bool(false),
		HTMLURL:       github.String(wire.WebBase(r) + "/" + full),
		URL:           github.String(wire.APIBase(r) + "/repos/" + full),
		DefaultBranch: github.String(repo.defaultBranch),
	}
}

func pullView(r *http.Request, repo repoInfo, pull pullState) *github.PullRequest {
	full := repo.owner + "/" + repo.name
	id := stableID(fmt.Sprintf("pull:%s#%d", full, pull.Number))
	issueURL := fmt.Sprintf("%s/repos/%s/issues/%d", wire.APIBase(r), full, pull.Number)
	htmlURL := fmt.Sprintf("%s/%s/pull/%d", wire.WebBase(r), full, pull.Number)
	branch := func(ref, sha string) *github.PullRequestBranch {
		return &github.PullRequestBranch{
			Label: github.String(repo.owner + ":" + ref), Ref: github.String(ref), SHA: github.String(sha),
			User: userView(r, repo.owner), Repo: repoView(r, repo),
		}
	}
	return &github.PullRequest{
		ID:                github.Int64(id),
		NodeID:            github.String(nodeID("PR", id)),
		Number:            github.Int(pull.Number),
		URL:               github.String(fmt.Sprintf("%s/repos/%s/pulls/%d", wire.APIBase(r), full, pull.Number)),
		HTMLURL:           github.String(htmlURL),
		DiffURL:           github.String(htmlURL + ".diff"),
		IssueURL:          github.String(issueURL),
		CommentsURL:       github.String(issueURL + "/comments"),
		State:             github.String(pull.State),
		Title:             github.String(pull.Title),
		Body:              github.String(pull.Body),
		User:              userView(r, pull.Author),
		CreatedAt:         &github.Timestamp{Time: pull.CreatedAt.UTC()},
		UpdatedAt:         &github.Timestamp{Time: lastActivity(pull)},
		Head:              branch(pull.HeadRef, pull.HeadSHA),
		Base:              branch(pull.BaseRef, pull.BaseSHA),
		Draft:             github.Bool(false),
		Merged:            github.Bool(false),
		Comments:          github.Int(len(pull.comments)),
		Commits:           github.Int(1),
		Additions:         github.Int(pull.additions),
		Deletions:         github.Int(pull.deletions),
		ChangedFiles:      github.Int(len(pull.Files)),
		AuthorAssociation: github.String("CONTRIBUTOR"),
	}
}

func lastActivity(pull pullState) time.Time {
	updated := pull.CreatedAt.UTC()
	if n := len(pull.comments); n > 0 && pull.comments[n-1].CreatedAt.After(updated) {
		updated = pull.comments[n-1].CreatedAt
	}
	return updated
}

func fileView(r *http.Request, repo repoInfo, pull pullState, f FixtureFile) *github.CommitFile {
	full := repo.owner + "/" + repo.name
	add, del := countPatchLines(f.Patch)
	file := &github.CommitFile{
		SHA:         github.String(blobSHA(f)),
		Filename:    github.String(f.Filename),
		Status:      github.String(f.Status),
		Additions:   github.Int(add),
		Deletions:   github.Int(del),
		Changes:     github.Int(add + del),
		BlobURL:     github.String(fmt.Sprintf("%s/%s/blob/%s/%s", wire.WebBase(r), full, pull.HeadSHA, f.Filename)),
		RawURL:      github.String(fmt.Sprintf("%s/%s/raw/%s/%s", wire.WebBase(r), full, pull.HeadSHA, f.Filename)),
		ContentsURL: github.String(fmt.Sprintf("%s/repos/%s/contents/%s?ref=%s", wire.APIBase(r), full, f.Filename, pull.HeadSHA)),
	}
	if f.Patch != "" {
		// GitHub leaves the patch out of a binary or too large file.
		file.Patch = github.String(f.Patch)
	}
	return file
}

func blobSHA(f FixtureFile) string {
	sum := sha1.Sum([]byte(f.Filename + "\x00" + f.Patch))
	return hex.EncodeToString(sum[:])
}

func commentView(r *http.Request, repo repoInfo, number int, c Comment) *github.IssueComment {
	full := repo.owner + "/" + repo.name
	return &github.IssueComment{
		ID:                github.Int64(c.ID),
		NodeID:            github.String(nodeID("IC", c.ID)),
		URL:               github.String(fmt.Sprintf("%s/repos/%s/issues/comments/%d", wire.APIBase(r), full, c.ID)),
		HTMLURL:           github.String(fmt.Sprintf("%s/%s/pull/%d#issuecomment-%d", wire.WebBase(r), full, number, c.ID)),
		IssueURL:          github.String(fmt.Sprintf("%s/repos/%s/issues/%d", wire.APIBase(r), full, number)),
		Body:              github.String(c.Body),
		User:              userView(r, c.User),
		CreatedAt:         &github.Timestamp{Time: c.CreatedAt},
		UpdatedAt:         &github.Timestamp{Time: c.CreatedAt},
		AuthorAssociation: github.String("NONE"),
	}
}
