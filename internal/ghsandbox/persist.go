package ghsandbox

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// stateVersion is written into every state file; a file of another version
// is refused rather than half understood. Version 1 files, from before
// reviews, labels and issues, are read as having none.
const stateVersion = 2

// savedState is what a persistent sandbox keeps on disk: everything clients
// can change. The fixture (pulls, files, collaborators, the bot) is not in
// it: it comes from the fixture at every start. Faults and the request log
// are not in it either: they belong to the test or experiment that queued
// them, and a fault outliving its process would strike a stranger.
type savedState struct {
	Version int `json:"version"`
	// NextCommentID numbers comments and reviews alike.
	NextCommentID int64       `json:"nextCommentId"`
	Pulls         []savedPull `json:"pulls"`
	Repos         []savedRepo `json:"repos,omitempty"`
}

// savedPull is one pull request's comments and reviews, oldest first.
type savedPull struct {
	Owner    string    `json:"owner"`
	Repo     string    `json:"repo"`
	Number   int       `json:"number"`
	Comments []Comment `json:"comments"`
	Reviews  []Review  `json:"reviews,omitempty"`
}

// savedRepo is a repository's labels, the issues created in it and the
// labels on each issue or pull request by number.
type savedRepo struct {
	Owner       string           `json:"owner"`
	Repo        string           `json:"repo"`
	Labels      []LabelFacts     `json:"labels"`
	Issues      []Issue          `json:"issues"`
	IssueLabels map[int][]string `json:"issueLabels"`
	// CheckRuns are the repository's check runs, oldest first.
	CheckRuns []CheckRun `json:"checkRuns,omitempty"`
}

// errState marks a state file that cannot be used; the command names its
// variable in front of it.
var errState = errors.New("sandbox state")

// NewPersistent is New with its mutable state kept in the file at path: the
// comments and the next comment ID are read from it when it exists and
// written to it, atomically, after every change, so that a restarted
// sandbox lists the same comments and never hands out an ID twice. A file
// that cannot be read or does not match the fixture is an error: starting
// empty would reuse IDs that old links and runs still point at.
func NewPersistent(fixture Fixture, path string) (*Server, error) {
	s := New(fixture)
	var st savedState
	found, err := readStateFile(path, &st)
	switch {
	case err != nil && !found:
		return nil, fmt.Errorf("%w: %w", errState, err)
	case err != nil:
		return nil, fmt.Errorf("%w: %w (delete the file to start from the fixture again)", errState, err)
	case found:
		if err := s.restore(st); err != nil {
			return nil, fmt.Errorf("%w: %s: %w (delete the file to start from the fixture again)", errState, path, err)
		}
	}
	// On a first start the file is written now, so that a path nobody can
	// write to fails here rather than on the first comment.
	s.mu.Lock()
	defer s.mu.Unlock()
	s.statePath = path
	if err := s.saveLocked(); err != nil {
		return nil, err
	}
	return s, nil
}

// restore replaces the fixture's comments with the saved ones and adds the
// saved reviews, labels and issues. A pull request the fixture gained since
// the file was written keeps its fixture comments, numbered after the saved
// ones.
func (s *Server) restore(st savedState) error {
	if st.Version != stateVersion && st.Version != 1 {
		return fmt.Errorf("version %d, want %d", st.Version, stateVersion)
	}
	if st.NextCommentID < firstCommentID {
		return fmt.Errorf("nextCommentId %d is below the first ID %d", st.NextCommentID, int64(firstCommentID))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	seen := map[int64]bool{}
	restored := map[*pullState]savedPull{}
	for _, sp := range st.Pulls {
		rs, ok := s.repos[repoID(sp.Owner, sp.Repo)]
		if !ok || rs.pulls[sp.Number] == nil {
			return fmt.Errorf("pull request %s/%s#%d is not in the fixture", sp.Owner, sp.Repo, sp.Number)
		}
		ps := rs.pulls[sp.Number]
		if _, dup := restored[ps]; dup {
			return fmt.Errorf("pull request %s/%s#%d is listed twice", sp.Owner, sp.Repo, sp.Number)
		}
		ids := make([]int64, 0, len(sp.Comments)+len(sp.Reviews))
		for _, c := range sp.Comments {
			ids = append(ids, c.ID)
		}
		for _, rv := range sp.Reviews {
			ids = append(ids, rv.ID)
		}
		for _, id := range ids {
			if id < firstCommentID || id >= st.NextCommentID || seen[id] {
				return fmt.Errorf("comment or review ID %d on %s/%s#%d is repeated or outside [%d, nextCommentId %d)",
					id, sp.Owner, sp.Repo, sp.Number, int64(firstCommentID), st.NextCommentID)
			}
			seen[id] = true
		}
		restored[ps] = sp
	}
	repos, err := s.checkSavedReposLocked(st.Repos)
	if err != nil {
		return err
	}
	for _, sr := range repos {
		for _, c := range sr.CheckRuns {
			if c.ID < firstCommentID || c.ID >= st.NextCommentID || seen[c.ID] {
				return fmt.Errorf("check run ID %d of %s/%s is repeated or outside [%d, nextCommentId %d)",
					c.ID, sr.Owner, sr.Repo, int64(firstCommentID), st.NextCommentID)
			}
			seen[c.ID] = true
		}
	}

	s.nextCommentID = st.NextCommentID
	for _, rs := range s.repos {
		for _, ps := range rs.pulls {
			if sp, ok := restored[ps]; ok {
				ps.comments = append([]Comment(nil), sp.Comments...)
				ps.reviews = append([]Review(nil), sp.Reviews...)
				continue
			}
			for i := range ps.comments {
				ps.comments[i].ID = s.allocCommentID()
			}
		}
	}
	for rs, sr := range repos {
		// A file written before the fixture named a label keeps the
		// fixture's label as well as its own.
		for _, l := range sr.Labels {
			if _, ok := rs.label(l.Name); !ok {
				rs.labels = append(rs.labels, l)
			}
		}
		for _, is := range sr.Issues {
			rs.issues[is.Number] = &is
		}
		for number, names := range sr.IssueLabels {
			rs.issueLabels[number] = append([]string(nil), names...)
		}
		rs.checkRuns = append([]CheckRun(nil), sr.CheckRuns...)
	}
	return nil
}

// checkSavedReposLocked matches saved repositories to the fixture's and
// refuses what the sandbox could not have written: an issue on a pull
// request's number, a label nobody made, labels on a number that is neither.
func (s *Server) checkSavedReposLocked(saved []savedRepo) (map[*repoState]savedRepo, error) {
	out := map[*repoState]savedRepo{}
	for _, sr := range saved {
		rs, ok := s.repos[repoID(sr.Owner, sr.Repo)]
		if !ok {
			return nil, fmt.Errorf("repository %s/%s is not in the fixture", sr.Owner, sr.Repo)
		}
		if _, dup := out[rs]; dup {
			return nil, fmt.Errorf("repository %s/%s is listed twice", sr.Owner, sr.Repo)
		}
		numbers := map[int]bool{}
		for number := range rs.pulls {
			numbers[number] = true
		}
		for _, is := range sr.Issues {
			if is.Number <= 0 || numbers[is.Number] {
				return nil, fmt.Errorf("issue %s/%s#%d is not positive or repeats a number", sr.Owner, sr.Repo, is.Number)
			}
			numbers[is.Number] = true
		}
		names := map[string]bool{}
		for _, l := range sr.Labels {
			key := strings.ToLower(l.Name)
			if strings.TrimSpace(l.Name) == "" || names[key] {
				return nil, fmt.Errorf("label %q of %s/%s is empty or repeated", l.Name, sr.Owner, sr.Repo)
			}
			names[key] = true
		}
		for number, on := range sr.IssueLabels {
			for _, name := range on {
				if !numbers[number] || !names[strings.ToLower(name)] {
					return nil, fmt.Errorf("label %q on %s/%s#%d names a label or number that does not exist", name, sr.Owner, sr.Repo, number)
				}
			}
		}
		out[rs] = sr
	}
	return out, nil
}

// snapshotLocked is the state to save, in a stable order so that the file
// changes only where the sandbox did. The caller holds s.mu.
func (s *Server) snapshotLocked() savedState {
	st := savedState{Version: stateVersion, NextCommentID: s.nextCommentID, Pulls: []savedPull{}}
	for _, rs := range s.repos {
		for number, ps := range rs.pulls {
			st.Pulls = append(st.Pulls, savedPull{
				Owner: rs.owner, Repo: rs.name, Number: number,
				Comments: append([]Comment{}, ps.comments...),
				Reviews:  ps.reviews,
			})
		}
		if len(rs.labels) == 0 && len(rs.issues) == 0 && len(rs.checkRuns) == 0 {
			continue
		}
		sr := savedRepo{Owner: rs.owner, Repo: rs.name, Labels: rs.labels, Issues: []Issue{}, IssueLabels: rs.issueLabels, CheckRuns: rs.checkRuns}
		for _, number := range rs.numbers() {
			if is, ok := rs.issues[number]; ok {
				sr.Issues = append(sr.Issues, *is)
			}
		}
		st.Repos = append(st.Repos, sr)
	}
	slices.SortFunc(st.Repos, func(a, b savedRepo) int {
		return strings.Compare(repoID(a.Owner, a.Repo), repoID(b.Owner, b.Repo))
	})
	slices.SortFunc(st.Pulls, func(a, b savedPull) int {
		if c := strings.Compare(repoID(a.Owner, a.Repo), repoID(b.Owner, b.Repo)); c != 0 {
			return c
		}
		return a.Number - b.Number
	})
	return st
}

// saveLocked writes the state file when there is one. The caller holds s.mu,
// which orders the writes: a later state never loses to an earlier one.
func (s *Server) saveLocked() error {
	if s.statePath == "" {
		return nil
	}
	if err := writeStateFile(s.statePath, s.snapshotLocked()); err != nil {
		return fmt.Errorf("%w: %w", errState, err)
	}
	return nil
}
