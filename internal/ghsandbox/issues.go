package ghsandbox

import (
	"net/http"
	"slices"
	"time"
)

// Issue is an issue created through the API; its labels are in Labels.
type Issue struct {
	Number    int       `json:"number"`
	Title     string    `json:"title"`
	Body      string    `json:"body"`
	User      string    `json:"user"`
	State     string    `json:"state"`
	CreatedAt time.Time `json:"createdAt"`
}

func (s *Server) createIssue(r *http.Request) Response {
	var in CreateIssueRequest
	if resp, ok := s.decodeWrite(r, DocsCreateIssue, &in); !ok {
		return resp
	}
	if in.NullLabels {
		return Error(http.StatusUnprocessableEntity, "Invalid request.\n\nFor 'properties/labels', nil is not an array.", DocsCreateIssue)
	}
	title, invalid, bad := in.CheckedTitle()
	if !bad {
		invalid, bad = CheckBody(resourceIssue, in.Body, false)
	}
	if !bad {
		invalid, bad = CheckLabelNames(in.Labels, false)
	}
	if bad {
		return ValidationFailed(DocsCreateIssue, invalid)
	}
	return s.onRepo(DocsCreateIssue, func(r *http.Request, rs *repoState) Response {
		b := BasesOf(r)
		is := &Issue{Number: rs.nextNumber(), Title: title, User: s.botLogin, State: "open", CreatedAt: commentTime()}
		if in.Body != nil {
			is.Body = *in.Body
		}
		rs.issues[is.Number] = is
		if err := s.labelLocked(rs, is.Number, in.Labels); err != nil {
			delete(rs.issues, is.Number)
			return labelRefused(DocsCreateIssue, err)
		}
		facts, _ := rs.issueFacts(is.Number)
		view := NewIssue(b, rs.ref(), facts)
		resp := JSON(http.StatusCreated, view)
		resp.Header.Set("Location", view.URL)
		return resp
	})(r)
}

// nextNumber is the number GitHub would give the repository's next issue:
// issues and pull requests count up together.
func (rs *repoState) nextNumber() int {
	n := 0
	for number := range rs.pulls {
		n = max(n, number)
	}
	for number := range rs.issues {
		n = max(n, number)
	}
	return n + 1
}

// listIssues lists issues and, as GitHub does, pull requests with them.
func listIssues(r *http.Request, rs *repoState) Response {
	b := BasesOf(r)
	iq, invalid := ParseIssueQuery(r.URL.Query())
	if invalid != nil {
		return ValidationFailed(DocsListIssues, *invalid)
	}
	var found []IssueFacts
	for _, number := range rs.numbers() {
		if f, _ := rs.issueFacts(number); iq.Matches(f) {
			found = append(found, f)
		}
	}
	slices.SortFunc(found, iq.Compare)
	return Paginated(r, viewsOf(found, func(f IssueFacts) IssueJSON { return NewIssue(b, rs.ref(), f) }))
}

// numbers is every issue and pull request number of the repository, sorted.
func (rs *repoState) numbers() []int {
	var out []int
	for number := range rs.pulls {
		out = append(out, number)
	}
	for number := range rs.issues {
		out = append(out, number)
	}
	slices.Sort(out)
	return out
}

// Issues returns the issues created through the API, by number.
func (s *Server) Issues(owner, repo string) []Issue {
	s.mu.Lock()
	defer s.mu.Unlock()
	rs, ok := s.repos[repoID(owner, repo)]
	if !ok {
		return nil
	}
	out := []Issue{}
	for _, number := range rs.numbers() {
		if is, ok := rs.issues[number]; ok {
			out = append(out, *is)
		}
	}
	return out
}
