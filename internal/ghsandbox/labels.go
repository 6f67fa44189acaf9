package ghsandbox

import (
	"errors"
	"net/http"
	"slices"
	"strings"
)

// newLabelColor is the color GitHub gives a label it creates because an
// issue named it.
const newLabelColor = "ededed"

func listLabels(r *http.Request, rs *repoState) Response {
	b := BasesOf(r)
	number, ok := pathNumber(r)
	if !ok || rs.pulls[number] == nil && rs.issues[number] == nil {
		return NotFound(DocsListLabels)
	}
	return Paginated(r, NewLabels(b, rs.ref(), rs.labelsOn(number)))
}

// listRepoLabels is the repository's labels, in the order they were made:
// the fixture's, then those an issue or pull request was the first to name.
func listRepoLabels(r *http.Request, rs *repoState) Response {
	return Paginated(r, NewLabels(BasesOf(r), rs.ref(), rs.labels))
}

func (s *Server) addLabels(r *http.Request) Response {
	var in AddLabelsRequest
	if resp, ok := s.decodeWrite(r, DocsAddLabels, &in); !ok {
		return resp
	}
	number, _ := pathNumber(r) // decodeWrite found the issue or pull request
	if invalid, bad := CheckLabelNames(in.Labels, true); bad {
		return ValidationFailed(DocsAddLabels, invalid)
	}
	return s.onRepo(DocsAddLabels, func(r *http.Request, rs *repoState) Response {
		b := BasesOf(r)
		if err := s.labelLocked(rs, number, in.Labels); err != nil {
			return labelRefused(DocsAddLabels, err)
		}
		return JSON(http.StatusOK, NewLabels(b, rs.ref(), rs.labelsOn(number)))
	})(r)
}

// errTooManyLabels is labelLocked's refusal of an issue past GitHub's limit.
var errTooManyLabels = errors.New("too many labels")

// labelRefused answers labelLocked's error.
func labelRefused(docs string, err error) Response {
	if errors.Is(err, errTooManyLabels) {
		return ValidationFailed(docs, TooManyLabels())
	}
	return notStored(docs, err)
}

// labelLocked adds labels to issue or pull request number, creating those
// the repository lacks, and saves; on any refusal nothing changes. The
// caller holds s.mu and has checked the names.
func (s *Server) labelLocked(rs *repoState, number int, names []string) error {
	repoLabels := len(rs.labels)
	before, had := rs.issueLabels[number]
	undo := func() {
		rs.labels = rs.labels[:repoLabels]
		if had {
			rs.issueLabels[number] = before
		} else {
			delete(rs.issueLabels, number)
		}
	}
	on := slices.Clone(before)
	for _, name := range names {
		l, ok := rs.label(name)
		if !ok {
			l = LabelFacts{Name: strings.TrimSpace(name), Color: newLabelColor}
			rs.labels = append(rs.labels, l)
		}
		if !slices.ContainsFunc(on, func(n string) bool { return strings.EqualFold(n, l.Name) }) {
			on = append(on, l.Name)
		}
	}
	if len(on) > MaxLabelsPerIssue {
		undo()
		return errTooManyLabels
	}
	if len(on) > 0 {
		rs.issueLabels[number] = on
	}
	if err := s.saveLocked(); err != nil {
		undo()
		return err
	}
	return nil
}

// Labels returns the names of the labels on an issue or pull request, in
// the order they were added.
func (s *Server) Labels(owner, repo string, number int) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	rs, ok := s.repos[repoID(owner, repo)]
	if !ok {
		return nil
	}
	return slices.Clone(rs.issueLabels[number])
}
