package ghsandbox

import (
	"net/http"
	"slices"
	"strings"
	"time"
)

// OpCompare is GET /repos/{owner}/{repo}/compare/{base}...{head}.
const OpCompare = "compare_commits"

// DocsCompare is the compare endpoint's documentation.
const DocsCompare = "https://docs.github.com/rest/commits/commits#compare-two-commits"

// commitRecord is a commit the sandbox knows: a pull request's head as the
// fixture has it (one commit on its base), or one pushed through
// ControlPullEventsPath. Force-pushed-away commits stay, as on GitHub.
type commitRecord struct {
	SHA, Parent, Message, Author string
	Files                        []FixtureFile
	At                           time.Time
}

// commitKey keys s.commits.
func commitKey(owner, repo, sha string) string {
	return repoID(owner, repo) + "@" + strings.ToLower(sha)
}

// recordCommitLocked keeps c; the caller holds s.mu.
func (s *Server) recordCommitLocked(owner, repo string, c commitRecord) {
	if s.commits == nil {
		s.commits = map[string]commitRecord{}
	}
	s.commits[commitKey(owner, repo, c.SHA)] = c
}

// headCommitLocked makes sure the pull request's head is known as a commit
// (the fixture's head: one commit on its base with all its files).
func (s *Server) headCommitLocked(rs *repoState, ps *pullState) {
	if _, ok := s.commits[commitKey(rs.owner, rs.name, ps.HeadSHA)]; ok {
		return
	}
	s.recordCommitLocked(rs.owner, rs.name, commitRecord{SHA: ps.HeadSHA, Parent: ps.BaseSHA, Message: ps.Title,
		Author: ps.Author, Files: slices.Clone(ps.Files), At: ps.CreatedAt})
}

func (s *Server) compareRoutes() {
	s.mux.Handle("GET /repos/{owner}/{repo}/compare/{basehead}", s.api(OpCompare, s.compare))
}

// compare answers as GitHub does for two commits of the sandbox: ahead
// when base is an ancestor of head (the commits and files since base),
// diverged when it is not (a force-push: the commits and files since the
// pull request's base), identical when they are one.
func (s *Server) compare(r *http.Request) Response {
	base, head, ok := strings.Cut(r.PathValue("basehead"), "...")
	if !ok || base == "" || head == "" {
		return NotFound(DocsCompare)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	rs, found := s.repos[repoID(r.PathValue("owner"), r.PathValue("repo"))]
	if !found {
		return NotFound(DocsCompare)
	}
	for _, ps := range rs.pulls {
		s.headCommitLocked(rs, ps)
	}
	owner, name := rs.owner, rs.name
	headC, okHead := s.commits[commitKey(owner, name, head)]
	baseC, okBase := s.commits[commitKey(owner, name, base)]
	if !okHead {
		return NotFound(DocsCompare)
	}
	if !okBase {
		baseC = commitRecord{SHA: strings.ToLower(base)}
		if !s.isRootOfLocked(owner, name, headC, baseC.SHA) {
			return NotFound(DocsCompare)
		}
	}
	ahead, reached := s.chainLocked(owner, name, headC, baseC.SHA)
	status, mergeBase, behind := "ahead", baseC, 0
	switch {
	case headC.SHA == baseC.SHA:
		status, ahead = "identical", nil
	case !reached:
		// Diverged: both sides go back to the chain's root, the pull
		// request's base.
		root := ahead[len(ahead)-1].Parent
		mergeBase = commitRecord{SHA: root}
		back, _ := s.chainLocked(owner, name, baseC, root)
		status, behind = "diverged", len(back)
	}
	slices.Reverse(ahead)
	b := BasesOf(r)
	repo := rs.ref()
	var files []FixtureFile
	commits := make([]Commit, 0, len(ahead))
	for _, c := range ahead {
		commits = append(commits, newCommit(b, repo, c))
		for _, f := range c.Files {
			files = upsertFile(files, f)
		}
	}
	entries := make([]DiffEntry, 0, len(files))
	for _, f := range files {
		entries = append(entries, NewDiffEntry(b, repo, headC.SHA, fileFacts(f)))
	}
	return JSON(http.StatusOK, CommitComparison{
		URL:          b.repoAPI(repo) + "/compare/" + base + "..." + head,
		HTMLURL:      b.repoWeb(repo) + "/compare/" + base + "..." + head,
		PermalinkURL: b.repoWeb(repo) + "/compare/" + repo.Owner + ":" + baseC.SHA + "..." + repo.Owner + ":" + headC.SHA,
		DiffURL:      b.repoWeb(repo) + "/compare/" + base + "..." + head + ".diff",
		PatchURL:     b.repoWeb(repo) + "/compare/" + base + "..." + head + ".patch",
		BaseCommit:   newCommit(b, repo, baseC),
		MergeBase:    newCommit(b, repo, mergeBase),
		Status:       status,
		AheadBy:      len(ahead),
		BehindBy:     behind,
		TotalCommits: len(ahead),
		Commits:      commits,
		Files:        entries,
	})
}

// chainLocked walks from c back through known parents until stop; it
// returns the commits walked (c first) and whether it reached stop.
func (s *Server) chainLocked(owner, repo string, c commitRecord, stop string) ([]commitRecord, bool) {
	var walked []commitRecord
	for c.SHA != stop {
		walked = append(walked, c)
		parent, ok := s.commits[commitKey(owner, repo, c.Parent)]
		if !ok {
			return walked, c.Parent == stop
		}
		c = parent
	}
	return walked, true
}

// isRootOfLocked reports whether sha is the parent of the first known
// commit of c's chain: the pull request's base, which the sandbox holds no
// commit of.
func (s *Server) isRootOfLocked(owner, repo string, c commitRecord, sha string) bool {
	walked, _ := s.chainLocked(owner, repo, c, "")
	return len(walked) > 0 && strings.EqualFold(walked[len(walked)-1].Parent, sha)
}

// CommitComparison is GitHub's commit-comparison.
type CommitComparison struct {
	URL          string      `json:"url"`
	HTMLURL      string      `json:"html_url"`
	PermalinkURL string      `json:"permalink_url"`
	DiffURL      string      `json:"diff_url"`
	PatchURL     string      `json:"patch_url"`
	BaseCommit   Commit      `json:"base_commit"`
	MergeBase    Commit      `json:"merge_base_commit"`
	Status       string      `json:"status"`
	AheadBy      int         `json:"ahead_by"`
	BehindBy     int         `json:"behind_by"`
	TotalCommits int         `json:"total_commits"`
	Commits      []Commit    `json:"commits"`
	Files        []DiffEntry `json:"files"`
}

// Commit is GitHub's commit.
type Commit struct {
	URL         string       `json:"url"`
	SHA         string       `json:"sha"`
	NodeID      string       `json:"node_id"`
	HTMLURL     string       `json:"html_url"`
	CommentsURL string       `json:"comments_url"`
	Commit      GitCommit    `json:"commit"`
	Author      *User        `json:"author"`
	Committer   *User        `json:"committer"`
	Parents     []CommitLink `json:"parents"`
}

// GitCommit is a commit's Git data.
type GitCommit struct {
	URL          string       `json:"url"`
	Author       GitUser      `json:"author"`
	Committer    GitUser      `json:"committer"`
	Message      string       `json:"message"`
	CommentCount int          `json:"comment_count"`
	Tree         CommitLink   `json:"tree"`
	Verification Verification `json:"verification"`
}

// GitUser is a commit's author or committer as Git records them.
type GitUser struct {
	Name  string `json:"name"`
	Email string `json:"email"`
	Date  string `json:"date"`
}

// CommitLink names a commit or tree.
type CommitLink struct {
	SHA     string `json:"sha"`
	URL     string `json:"url"`
	HTMLURL string `json:"html_url,omitempty"`
}

// Verification says the commit is unsigned.
type Verification struct {
	Verified   bool    `json:"verified"`
	Reason     string  `json:"reason"`
	Payload    *string `json:"payload"`
	Signature  *string `json:"signature"`
	VerifiedAt *string `json:"verified_at"`
}

func newCommit(b Bases, repo RepoRef, c commitRecord) Commit {
	api, web := b.repoAPI(repo), b.repoWeb(repo)
	author := c.Author
	if author == "" {
		author = repo.Owner
	}
	at := c.At
	if at.IsZero() {
		at = accountsCreated
	}
	user := NewUser(b, author)
	git := GitUser{Name: author, Email: author + "@users.noreply.github.com", Date: at.UTC().Format(time.RFC3339)}
	var parents []CommitLink
	if c.Parent != "" {
		parents = []CommitLink{{SHA: c.Parent, URL: api + "/commits/" + c.Parent, HTMLURL: web + "/commit/" + c.Parent}}
	} else {
		parents = []CommitLink{}
	}
	message := c.Message
	if message == "" {
		message = "base"
	}
	return Commit{
		URL: api + "/commits/" + c.SHA, SHA: c.SHA, NodeID: NodeID("C", StableID("commit:"+c.SHA)),
		HTMLURL: web + "/commit/" + c.SHA, CommentsURL: api + "/commits/" + c.SHA + "/comments",
		Commit: GitCommit{URL: api + "/git/commits/" + c.SHA, Author: git, Committer: git, Message: message,
			Tree: CommitLink{SHA: c.SHA, URL: api + "/git/trees/" + c.SHA}, Verification: Verification{Reason: "unsigned"}},
		Author: &user, Committer: &user, Parents: parents,
	}
}
