package ghsandbox

import (
	"crypto/sha1"
	"encoding/hex"
	"strings"
	"time"
)

// The views turn the sandbox's state into the facts wire builds GitHub's
// objects from. Those that read a repository's state run under s.mu.

func (ri repoInfo) ref() RepoRef {
	return RepoRef{Owner: ri.owner, Name: ri.name, DefaultBranch: ri.defaultBranch}
}

// openIssues counts open issues and pull requests, as GitHub's open_issues does.
func (rs *repoState) openIssues() int {
	n := 0
	for _, ps := range rs.pulls {
		if ps.State == "open" {
			n++
		}
	}
	for _, is := range rs.issues {
		if is.State == "open" {
			n++
		}
	}
	return n
}

// labelsOn is the labels on issue or pull request number, in the order added.
func (rs *repoState) labelsOn(number int) []LabelFacts {
	out := []LabelFacts{}
	for _, name := range rs.issueLabels[number] {
		if l, ok := rs.label(name); ok {
			out = append(out, l)
		}
	}
	return out
}

// label finds a label by name, which GitHub matches case-insensitively.
func (rs *repoState) label(name string) (LabelFacts, bool) {
	for _, l := range rs.labels {
		if strings.EqualFold(l.Name, name) {
			return l, true
		}
	}
	return LabelFacts{}, false
}

func (rs *repoState) pullFacts(ps *pullState) PullFacts {
	return PullFacts{
		Number: ps.Number, Title: ps.Title, Body: ps.Body, Author: ps.Author, State: ps.State,
		HeadRef: ps.HeadRef, HeadSHA: ps.HeadSHA, BaseRef: ps.BaseRef, BaseSHA: ps.BaseSHA,
		CreatedAt: ps.CreatedAt, UpdatedAt: lastActivity(ps),
		Comments: len(ps.comments), Additions: ps.additions, Deletions: ps.deletions, ChangedFiles: len(ps.Files),
		Labels: rs.labelsOn(ps.Number),
	}
}

// issueFacts is issue or pull request number as an issue.
func (rs *repoState) issueFacts(number int) (IssueFacts, bool) {
	if ps, ok := rs.pulls[number]; ok {
		return IssueFacts{
			Number: number, Title: ps.Title, Body: ps.Body, Author: ps.Author, State: ps.State,
			CreatedAt: ps.CreatedAt, UpdatedAt: lastActivity(ps), Comments: len(ps.comments),
			Labels: rs.labelsOn(number), IsPull: true,
		}, true
	}
	if is, ok := rs.issues[number]; ok {
		return IssueFacts{
			Number: number, Title: is.Title, Body: is.Body, Author: is.User, State: is.State,
			CreatedAt: is.CreatedAt, UpdatedAt: is.CreatedAt, Labels: rs.labelsOn(number),
		}, true
	}
	return IssueFacts{}, false
}

func lastActivity(ps *pullState) time.Time {
	updated := ps.CreatedAt.UTC()
	if n := len(ps.comments); n > 0 && ps.comments[n-1].CreatedAt.After(updated) {
		updated = ps.comments[n-1].CreatedAt
	}
	if n := len(ps.reviews); n > 0 && ps.reviews[n-1].SubmittedAt != nil && ps.reviews[n-1].SubmittedAt.After(updated) {
		updated = *ps.reviews[n-1].SubmittedAt
	}
	return updated
}

func fileFacts(f FixtureFile) FileFacts {
	add, del := CountLines(f.Patch)
	sum := sha1.Sum([]byte(f.Filename + "\x00" + f.Patch))
	return FileFacts{
		Filename: f.Filename, Status: f.Status, Patch: f.Patch,
		BlobSHA: hex.EncodeToString(sum[:]), Additions: add, Deletions: del,
	}
}

func commentFacts(number int, c Comment) CommentFacts {
	f := CommentFacts{ID: c.ID, Number: number, User: c.User, Body: c.Body, CreatedAt: c.CreatedAt}
	if c.UpdatedAt != nil {
		f.UpdatedAt = *c.UpdatedAt
	}
	return f
}

// viewsOf renders every item; an empty list is [], never null, as on GitHub.
func viewsOf[T, V any](items []T, view func(T) V) []V {
	views := make([]V, 0, len(items))
	for _, it := range items {
		views = append(views, view(it))
	}
	return views
}
