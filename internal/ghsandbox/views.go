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

func userView(r *http.Request, login string) wire.User {
	id := stableID("user:" + login)
	kind := "User"
	if strings.HasSuffix(login, "[bot]") {
		kind = "Bot"
	}
	return wire.User{
		Login:   login,
		ID:      id,
		NodeID:  nodeID("U", id),
		HTMLURL: wire.WebBase(r) + "/" + login,
		Type:    kind,
	}
}

func repoView(r *http.Request, repo repoInfo) wire.Repo {
	full := repo.owner + "/" + repo.name
	id := stableID("repo:" + full)
	return wire.Repo{
		ID:            id,
		NodeID:        nodeID("R", id),
		Name:          repo.name,
		FullName:      full,
		Owner:         userView(r, repo.owner),
		HTMLURL:       wire.WebBase(r) + "/" + full,
		URL:           wire.APIBase(r) + "/repos/" + full,
		DefaultBranch: repo.defaultBranch,
	}
}

func pullView(r *http.Request, repo repoInfo, pull pullState) wire.Pull {
	full := repo.owner + "/" + repo.name
	id := stableID(fmt.Sprintf("pull:%s#%d", full, pull.Number))
	issueURL := fmt.Sprintf("%s/repos/%s/issues/%d", wire.APIBase(r), full, pull.Number)
	htmlURL := fmt.Sprintf("%s/%s/pull/%d", wire.WebBase(r), full, pull.Number)
	branch := func(ref, sha string) wire.Branch {
		return wire.Branch{Label: repo.owner + ":" + ref, Ref: ref, SHA: sha, User: userView(r, repo.owner), Repo: repoView(r, repo)}
	}
	return wire.Pull{
		ID:                id,
		NodeID:            nodeID("PR", id),
		Number:            pull.Number,
		URL:               fmt.Sprintf("%s/repos/%s/pulls/%d", wire.APIBase(r), full, pull.Number),
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

func fileView(r *http.Request, repo repoInfo, pull pullState, f FixtureFile) wire.File {
	full := repo.owner + "/" + repo.name
	add, del := countPatchLines(f.Patch)
	return wire.File{
		SHA:         blobSHA(f),
		Filename:    f.Filename,
		Status:      f.Status,
		Additions:   add,
		Deletions:   del,
		Changes:     add + del,
		BlobURL:     fmt.Sprintf("%s/%s/blob/%s/%s", wire.WebBase(r), full, pull.HeadSHA, f.Filename),
		RawURL:      fmt.Sprintf("%s/%s/raw/%s/%s", wire.WebBase(r), full, pull.HeadSHA, f.Filename),
		ContentsURL: fmt.Sprintf("%s/repos/%s/contents/%s?ref=%s", wire.APIBase(r), full, f.Filename, pull.HeadSHA),
		Patch:       f.Patch,
	}
}

func blobSHA(f FixtureFile) string {
	sum := sha1.Sum([]byte(f.Filename + "\x00" + f.Patch))
	return hex.EncodeToString(sum[:])
}

func commentView(r *http.Request, repo repoInfo, number int, c Comment) wire.Comment {
	full := repo.owner + "/" + repo.name
	return wire.Comment{
		ID:                c.ID,
		NodeID:            nodeID("IC", c.ID),
		URL:               fmt.Sprintf("%s/repos/%s/issues/comments/%d", wire.APIBase(r), full, c.ID),
		HTMLURL:           fmt.Sprintf("%s/%s/pull/%d#issuecomment-%d", wire.WebBase(r), full, number, c.ID),
		IssueURL:          fmt.Sprintf("%s/repos/%s/issues/%d", wire.APIBase(r), full, number),
		Body:              c.Body,
		User:              userView(r, c.User),
		CreatedAt:         c.CreatedAt,
		UpdatedAt:         c.CreatedAt,
		AuthorAssociation: "NONE",
	}
}
