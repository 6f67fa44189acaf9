package ghsandbox

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/agentrun/agentrun/internal/ghsandbox/statefile"
)

// stateVersion is written into every state file; a file of another version
// is refused rather than half understood.
const stateVersion = 1

// savedState is what a persistent sandbox keeps on disk: everything clients
// can change. The fixture (pulls, files, collaborators, the bot) is not in
// it: it comes from the fixture at every start. Faults and the request log
// are not in it either: they belong to the test or experiment that queued
// them, and a fault outliving its process would strike a stranger.
type savedState struct {
	Version       int         `json:"version"`
	NextCommentID int64       `json:"nextCommentId"`
	Pulls         []savedPull `json:"pulls"`
}

// savedPull is one pull request's comments, oldest first.
type savedPull struct {
	Owner    string    `json:"owner"`
	Repo     string    `json:"repo"`
	Number   int       `json:"number"`
	Comments []Comment `json:"comments"`
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
	found, err := statefile.Read(path, &st)
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

// restore replaces the fixture's comments with the saved ones. A pull
// request the fixture gained since the file was written keeps its fixture
// comments, numbered after the saved ones.
func (s *Server) restore(st savedState) error {
	if st.Version != stateVersion {
		return fmt.Errorf("version %d, want %d", st.Version, stateVersion)
	}
	if st.NextCommentID < firstCommentID {
		return fmt.Errorf("nextCommentId %d is below the first ID %d", st.NextCommentID, int64(firstCommentID))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	seen := map[int64]bool{}
	restored := map[*pullState][]Comment{}
	for _, sp := range st.Pulls {
		rs, ok := s.repos[repoID(sp.Owner, sp.Repo)]
		if !ok || rs.pulls[sp.Number] == nil {
			return fmt.Errorf("pull request %s/%s#%d is not in the fixture", sp.Owner, sp.Repo, sp.Number)
		}
		ps := rs.pulls[sp.Number]
		if _, dup := restored[ps]; dup {
			return fmt.Errorf("pull request %s/%s#%d is listed twice", sp.Owner, sp.Repo, sp.Number)
		}
		for _, c := range sp.Comments {
			if c.ID < firstCommentID || c.ID >= st.NextCommentID || seen[c.ID] {
				return fmt.Errorf("comment ID %d on %s/%s#%d is repeated or outside [%d, nextCommentId %d)",
					c.ID, sp.Owner, sp.Repo, sp.Number, int64(firstCommentID), st.NextCommentID)
			}
			seen[c.ID] = true
		}
		restored[ps] = sp.Comments
	}

	s.nextCommentID = st.NextCommentID
	for _, rs := range s.repos {
		for _, ps := range rs.pulls {
			if comments, ok := restored[ps]; ok {
				ps.comments = append([]Comment(nil), comments...)
				continue
			}
			for i := range ps.comments {
				ps.comments[i].ID = s.allocCommentID()
			}
		}
	}
	return nil
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
			})
		}
	}
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
	if err := statefile.Write(s.statePath, s.snapshotLocked()); err != nil {
		return fmt.Errorf("%w: %w", errState, err)
	}
	return nil
}
