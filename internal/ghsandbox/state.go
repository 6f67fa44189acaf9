package ghsandbox

import (
	"errors"
	"strings"
	"time"
)

// firstCommentID makes comment IDs look like GitHub's (large, global across
// repositories) without colliding with pull request numbers in test output.
const firstCommentID = 2000000001

// Comment is an issue comment held by the sandbox.
type Comment struct {
	ID        int64     `json:"id"`
	User      string    `json:"user"`
	Body      string    `json:"body"`
	CreatedAt time.Time `json:"createdAt"`
	// UpdatedAt is the last edit's time; Edits counts the edits that
	// changed the body, so that a test sees an edit made once.
	UpdatedAt *time.Time `json:"updatedAt,omitempty"`
	Edits     int        `json:"edits,omitempty"`
}

// repoInfo is what responses say about a repository.
type repoInfo struct {
	owner         string
	name          string
	defaultBranch string
}

type repoState struct {
	repoInfo
	collaborators map[string]string // lowercased login -> permission
	pulls         map[int]*pullState
	// issues are those created through the API; pull requests share their
	// numbers, as on GitHub.
	issues map[int]*Issue
	// labels are the repository's, in the order they were made.
	labels []LabelFacts
	// issueLabels names the labels on an issue or pull request by number,
	// in the order they were added.
	issueLabels map[int][]string
	// checkRuns are the check runs created through the API, oldest first.
	checkRuns []CheckRun
}

type pullState struct {
	FixturePull
	additions int
	deletions int
	comments  []Comment
	reviews   []Review
}

// repoID keys repositories case-insensitively, as GitHub resolves them.
func repoID(owner, name string) string {
	return strings.ToLower(owner) + "/" + strings.ToLower(name)
}

func newRepoStates(f Fixture) map[string]*repoState {
	repos := make(map[string]*repoState, len(f.Repos))
	for _, fr := range f.Repos {
		rs := &repoState{
			repoInfo:      repoInfo{owner: fr.Owner, name: fr.Name, defaultBranch: fr.DefaultBranch},
			collaborators: map[string]string{},
			pulls:         map[int]*pullState{},
			issues:        map[int]*Issue{},
			issueLabels:   map[int][]string{},
			labels:        append([]LabelFacts(nil), fr.Labels...),
		}
		if rs.defaultBranch == "" {
			rs.defaultBranch = "main"
		}
		for login, perm := range fr.Collaborators {
			rs.collaborators[strings.ToLower(login)] = perm
		}
		for _, fp := range fr.Pulls {
			rs.pulls[fp.Number] = newPullState(fp)
		}
		repos[repoID(fr.Owner, fr.Name)] = rs
	}
	return repos
}

func newPullState(fp FixturePull) *pullState {
	ps := &pullState{FixturePull: fp}
	ps.Files = append([]FixtureFile(nil), fp.Files...)
	ps.Comments = nil
	for _, f := range ps.Files {
		add, del := CountLines(f.Patch)
		ps.additions += add
		ps.deletions += del
	}
	return ps
}

// seedComments gives the fixture's comments IDs in the same sequence as
// comments created later, so list order and ID order agree.
func (s *Server) seedComments(f Fixture) {
	for _, fr := range f.Repos {
		rs := s.repos[repoID(fr.Owner, fr.Name)]
		for _, fp := range fr.Pulls {
			ps := rs.pulls[fp.Number]
			for _, fc := range fp.Comments {
				ps.comments = append(ps.comments, Comment{
					ID:        s.allocCommentID(),
					User:      fc.User,
					Body:      fc.Body,
					CreatedAt: fc.CreatedAt.UTC(),
				})
			}
		}
	}
}

func (s *Server) allocCommentID() int64 {
	id := s.nextCommentID
	s.nextCommentID++
	return id
}

// lookupPull returns copies of a pull request and its repository, or false,
// so that callers read them without the lock.
func (s *Server) lookupPull(owner, repo string, number int) (repoInfo, pullState, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rs, ps, ok := s.pullLocked(owner, repo, number)
	if !ok {
		return repoInfo{}, pullState{}, false
	}
	cp := *ps
	cp.comments = append([]Comment(nil), ps.comments...)
	cp.reviews = append([]Review(nil), ps.reviews...)
	return rs.repoInfo, cp, true
}

// pullLocked finds a pull request and its repository; the caller holds s.mu.
func (s *Server) pullLocked(owner, repo string, number int) (*repoState, *pullState, bool) {
	rs, ok := s.repos[repoID(owner, repo)]
	if !ok {
		return nil, nil, false
	}
	ps, ok := rs.pulls[number]
	return rs, ps, ok
}

// errNoPull is addComment's answer for a pull request the sandbox lacks.
var errNoPull = errors.New("no such pull request")

// addComment appends a comment by user and returns it with its repository.
// With a state file the comment exists only once it is saved: a failed save
// undoes it, so that what clients were told and what a restart shows agree.
func (s *Server) addComment(owner, repo string, number int, user, body string) (repoInfo, Comment, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rs, ps, ok := s.pullLocked(owner, repo, number)
	if !ok {
		return repoInfo{}, Comment{}, errNoPull
	}
	c := Comment{
		ID:        s.allocCommentID(),
		User:      user,
		Body:      body,
		CreatedAt: commentTime(),
	}
	ps.comments = append(ps.comments, c)
	if err := s.saveLocked(); err != nil {
		ps.comments = ps.comments[:len(ps.comments)-1]
		s.nextCommentID--
		return repoInfo{}, Comment{}, err
	}
	return rs.repoInfo, c, nil
}

// Comments returns the comments on an issue or pull request, oldest first.
func (s *Server) Comments(owner, repo string, number int) []Comment {
	_, ps, ok := s.lookupPull(owner, repo, number)
	if !ok {
		return nil
	}
	return ps.comments
}

// permission returns a login's permission on a repository ("none" for a
// login that is not a collaborator), or false when the repository does not exist.
func (s *Server) permission(owner, repo, login string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rs, ok := s.repos[repoID(owner, repo)]
	if !ok {
		return "", false
	}
	if perm, ok := rs.collaborators[strings.ToLower(login)]; ok {
		return perm, true
	}
	return "none", true
}
