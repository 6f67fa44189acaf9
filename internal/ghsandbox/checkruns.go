package ghsandbox

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// This file serves the Checks API's check runs: create, update and the list
// for a ref, which a client finds its own check by (external_id). They are
// kept in the state file, as comments are.

// Check-run operations a fault can target.
const (
	OpCreateCheckRun = "create_check_run"
	OpUpdateCheckRun = "update_check_run"
	OpListCheckRuns  = "list_check_runs"
)

var checkStatuses = []string{checkStatusQueued, "in_progress", checkStatusCompleted}

var checkConclusions = []string{"action_required", "cancelled", "failure", "neutral", "success", "skipped", "timed_out"}

// checkRunRequest is the body of a create or an update; pointers tell a
// field left out from one set empty.
type checkRunRequest struct {
	Name        *string          `json:"name"`
	HeadSHA     *string          `json:"head_sha"`
	DetailsURL  *string          `json:"details_url"`
	ExternalID  *string          `json:"external_id"`
	Status      *string          `json:"status"`
	Conclusion  *string          `json:"conclusion"`
	StartedAt   *time.Time       `json:"started_at"`
	CompletedAt *time.Time       `json:"completed_at"`
	Output      *checkOutputIn   `json:"output"`
	Actions     []CheckRunAction `json:"actions"`
}

type checkOutputIn struct {
	Title   *string `json:"title"`
	Summary *string `json:"summary"`
	Text    *string `json:"text"`
}

// check applies GitHub's rules to a create (creating) or an update; the
// answer is the messages of its 422.
func (in checkRunRequest) check(creating bool) []string {
	var problems []string
	if creating && (in.Name == nil || strings.TrimSpace(*in.Name) == "") {
		problems = append(problems, "name wasn't supplied.")
	}
	if in.Name != nil && !creating && strings.TrimSpace(*in.Name) == "" {
		problems = append(problems, "name can't be blank.")
	}
	if creating && (in.HeadSHA == nil || *in.HeadSHA == "") {
		problems = append(problems, "head_sha wasn't supplied.")
	}
	if in.Status != nil && !slices.Contains(checkStatuses, *in.Status) {
		problems = append(problems, fmt.Sprintf("status %q is not a member of %s.", *in.Status, strings.Join(checkStatuses, ", ")))
	}
	if in.Conclusion != nil && !slices.Contains(checkConclusions, *in.Conclusion) {
		problems = append(problems, fmt.Sprintf("conclusion %q is not a member of %s.", *in.Conclusion, strings.Join(checkConclusions, ", ")))
	}
	if in.Conclusion == nil && (in.CompletedAt != nil || in.Status != nil && *in.Status == checkStatusCompleted) {
		problems = append(problems, "conclusion is required when status is completed or completed_at is given.")
	}
	if o := in.Output; o != nil {
		if o.Title == nil || (creating && o.Summary == nil) {
			problems = append(problems, "output needs a title and a summary.")
		}
		for _, s := range []*string{o.Summary, o.Text} {
			if s != nil && utf8.RuneCountInString(*s) > maxCheckOutputSummaryOrText {
				problems = append(problems, "output summary and text are at most 65535 characters.")
			}
		}
	}
	if len(in.Actions) > MaxCheckRunActions {
		problems = append(problems, fmt.Sprintf("actions: at most %d.", MaxCheckRunActions))
	}
	for _, a := range in.Actions {
		switch {
		case a.Label == "" || utf8.RuneCountInString(a.Label) > MaxCheckActionLabel:
			problems = append(problems, fmt.Sprintf("actions: label must be 1 to %d characters.", MaxCheckActionLabel))
		case a.Description == "" || utf8.RuneCountInString(a.Description) > MaxCheckActionDescription:
			problems = append(problems, fmt.Sprintf("actions: description must be 1 to %d characters.", MaxCheckActionDescription))
		case a.Identifier == "" || utf8.RuneCountInString(a.Identifier) > MaxCheckActionIdentifier:
			problems = append(problems, fmt.Sprintf("actions: identifier must be 1 to %d characters.", MaxCheckActionIdentifier))
		}
	}
	return problems
}

// apply writes the request's fields onto c, as GitHub does: a conclusion
// completes the run, whatever status was asked for.
func (in checkRunRequest) apply(c *CheckRun, now time.Time) {
	set := func(dst *string, src *string) {
		if src != nil {
			*dst = *src
		}
	}
	set(&c.Name, in.Name)
	set(&c.DetailsURL, in.DetailsURL)
	set(&c.ExternalID, in.ExternalID)
	set(&c.Status, in.Status)
	if in.StartedAt != nil {
		c.StartedAt = in.StartedAt.UTC()
	}
	if in.Conclusion != nil {
		c.Conclusion, c.Status = *in.Conclusion, checkStatusCompleted
		done := now
		if in.CompletedAt != nil {
			done = in.CompletedAt.UTC()
		}
		c.CompletedAt = &done
	}
	if o := in.Output; o != nil {
		c.Output.Title = o.Title
		if o.Summary != nil {
			c.Output.Summary = o.Summary
		}
		if o.Text != nil {
			c.Output.Text = o.Text
		}
	}
	if in.Actions != nil {
		c.Actions = slices.Clone(in.Actions)
	}
}

// commitKnown reports whether sha is a commit of the repository the
// sandbox knows: a pull request's head or base, or a commit once pushed
// (an older head stays a commit, as on GitHub, and keeps its check runs).
// The caller holds s.mu.
func (s *Server) commitKnown(rs *repoState, sha string) bool {
	for _, ps := range rs.pulls {
		if ps.HeadSHA == sha || ps.BaseSHA == sha {
			return true
		}
	}
	_, pushed := s.commits[commitKey(rs.owner, rs.name, sha)]
	return pushed
}

// resolveRef is a ref's commit: a SHA the repository knows, or the head of
// the pull request whose branch it names. The caller holds s.mu.
func (s *Server) resolveRef(rs *repoState, ref string) (string, bool) {
	if s.commitKnown(rs, ref) {
		return ref, true
	}
	branch := strings.TrimPrefix(ref, "heads/")
	for _, number := range slices.Sorted(maps.Keys(rs.pulls)) {
		if ps := rs.pulls[number]; ps.HeadRef == branch {
			return ps.HeadSHA, true
		}
	}
	return "", false
}

// pullsAt is the open pull requests whose head is sha, by number. The
// caller holds s.mu.
func (rs *repoState) pullsAt(sha string) []PullFacts {
	var out []PullFacts
	for _, number := range slices.Sorted(maps.Keys(rs.pulls)) {
		if ps := rs.pulls[number]; ps.HeadSHA == sha && ps.State == "open" {
			out = append(out, rs.pullFacts(ps))
		}
	}
	return out
}

func (rs *repoState) checkRunView(b Bases, c CheckRun) CheckRunJSON {
	return NewCheckRun(b, rs.ref(), c, rs.pullsAt(c.HeadSHA))
}

func (s *Server) createCheckRun(r *http.Request) Response {
	var in checkRunRequest
	if resp, ok := s.decodeWrite(r, DocsCreateCheckRun, &in); !ok {
		return resp
	}
	if problems := in.check(true); len(problems) > 0 {
		return ValidationFailedSimple(DocsCreateCheckRun, problems...)
	}
	return s.onRepo(DocsCreateCheckRun, func(r *http.Request, rs *repoState) Response {
		if !s.commitKnown(rs, *in.HeadSHA) {
			return ValidationFailedSimple(DocsCreateCheckRun, "No commit found for SHA: "+*in.HeadSHA)
		}
		now := time.Now().UTC().Truncate(time.Second)
		c := CheckRun{ID: s.allocCommentID(), HeadSHA: *in.HeadSHA, Status: checkStatusQueued, StartedAt: now}
		in.apply(&c, now)
		c.Shown = []string{c.shownAs()}
		rs.checkRuns = append(rs.checkRuns, c)
		if err := s.saveLocked(); err != nil {
			rs.checkRuns = rs.checkRuns[:len(rs.checkRuns)-1]
			s.nextCommentID--
			return notStored(DocsCreateCheckRun, err)
		}
		resp := JSON(http.StatusCreated, rs.checkRunView(BasesOf(r), c))
		return resp
	})(r)
}

func (s *Server) updateCheckRun(r *http.Request) Response {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id <= 0 {
		return NotFound(DocsUpdateCheckRun)
	}
	var in checkRunRequest
	if resp, ok := s.decodeWrite(r, DocsUpdateCheckRun, &in); !ok {
		return resp
	}
	if in.HeadSHA != nil {
		return ValidationFailedSimple(DocsUpdateCheckRun, "head_sha cannot be changed.")
	}
	if problems := in.check(false); len(problems) > 0 {
		return ValidationFailedSimple(DocsUpdateCheckRun, problems...)
	}
	return s.onRepo(DocsUpdateCheckRun, func(r *http.Request, rs *repoState) Response {
		i := slices.IndexFunc(rs.checkRuns, func(c CheckRun) bool { return c.ID == id })
		if i < 0 {
			return NotFound(DocsUpdateCheckRun)
		}
		before := rs.checkRuns[i]
		c := &rs.checkRuns[i]
		c.Actions, c.Shown = slices.Clone(c.Actions), slices.Clone(c.Shown)
		in.apply(c, time.Now().UTC().Truncate(time.Second))
		c.Updates++
		c.Shown = append(c.Shown, c.shownAs())
		if err := s.saveLocked(); err != nil {
			rs.checkRuns[i] = before
			return notStored(DocsUpdateCheckRun, err)
		}
		return JSON(http.StatusOK, rs.checkRunView(BasesOf(r), *c))
	})(r)
}

// listCheckRuns is the list for a ref, newest first as on GitHub, filtered
// by check_name and status; filter=latest (the default) keeps only the
// newest run of each name, so a client looking for its own run among
// several of one name asks for filter=all.
func (s *Server) listCheckRuns(r *http.Request, rs *repoState) Response {
	q := r.URL.Query()
	filter := q.Get("filter")
	if filter == "" {
		filter = checkFilterLatest
	}
	if filter != checkFilterLatest && filter != checkFilterAll {
		return ValidationFailedSimple(DocsListCheckRuns, "filter must be one of latest, all.")
	}
	status := q.Get("status")
	if status != "" && !slices.Contains(checkStatuses, status) {
		return ValidationFailedSimple(DocsListCheckRuns, "status must be one of queued, in_progress, completed.")
	}
	sha, ok := s.resolveRef(rs, r.PathValue("ref"))
	if !ok {
		return ValidationFailedSimple(DocsListCheckRuns, "No commit found for SHA: "+r.PathValue("ref"))
	}
	name := q.Get("check_name")
	seen := map[string]bool{}
	var match []CheckRunJSON
	for i := len(rs.checkRuns) - 1; i >= 0; i-- {
		c := rs.checkRuns[i]
		if c.HeadSHA != sha || name != "" && c.Name != name || status != "" && c.Status != status {
			continue
		}
		if filter == checkFilterLatest && seen[c.Name] {
			continue
		}
		seen[c.Name] = true
		match = append(match, rs.checkRunView(BasesOf(r), c))
	}
	p := parsePageRequest(q)
	resp := JSON(http.StatusOK, CheckRunList{TotalCount: len(match), CheckRuns: pageOf(append([]CheckRunJSON{}, match...), p)})
	if link := linkHeader(r, p, len(match)); link != "" {
		resp.Header.Set("Link", link)
	}
	return resp
}

// CheckRuns returns the check runs on a repository's commit sha, oldest first.
func (s *Server) CheckRuns(owner, repo, sha string) []CheckRun {
	s.mu.Lock()
	defer s.mu.Unlock()
	rs, ok := s.repos[repoID(owner, repo)]
	if !ok {
		return nil
	}
	var out []CheckRun
	for _, c := range rs.checkRuns {
		if c.HeadSHA == sha {
			c.Actions, c.Shown = slices.Clone(c.Actions), slices.Clone(c.Shown)
			out = append(out, c)
		}
	}
	return out
}
