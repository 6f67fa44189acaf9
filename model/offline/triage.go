package offline

import (
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/agentrun/agentrun/api"
)

// Triage: labels that follow from the changed files' paths alone, and one
// follow-up issue per TODO or FIXME the pull request adds. Nothing the pull
// request says (title, body, patch text) chooses a label; the TODO text it
// adds is copied into an issue only bounded, on one line and defused.

// Bounds of one triage, below the tools' schemas (add_labels takes at most
// 10 labels): a triage that labels or files more is noise.
const (
	maxLabels      = 5
	maxFollowUps   = 3
	maxTitleRunes  = 80
	maxQuotedRunes = 300
)

// fallbackLabel is the label of a pull request no path rule matches.
const fallbackLabel = "needs-triage"

// labelRules derive a label from a changed file's path.
var labelRules = []struct {
	label string
	match func(name string) bool
}{
	{"ci", func(name string) bool {
		base := path.Base(name)
		return strings.HasPrefix(name, ".github/") || strings.HasPrefix(name, ".ci/") ||
			base == "Makefile" || base == ".gitlab-ci.yml" || base == "Jenkinsfile"
	}},
	{"dependencies", func(name string) bool { return manifests[path.Base(name)] }},
	{"docs", func(name string) bool {
		return proseExtensions[strings.ToLower(path.Ext(name))] || inDir(name, "docs")
	}},
	{"go", func(name string) bool {
		return path.Ext(name) == ".go" || path.Base(name) == "go.mod" || path.Base(name) == "go.sum" || path.Base(name) == "go.work"
	}},
	{"tests", func(name string) bool {
		return strings.HasSuffix(name, "_test.go") || inDir(name, "testdata") || testScript.MatchString(path.Base(name))
	}},
}

// manifests are the files that declare a project's dependencies.
var manifests = map[string]bool{"go.mod": true, "go.sum": true, "package.json": true, "package-lock.json": true, "requirements.txt": true}

// testScript matches test files of Python, JavaScript and TypeScript.
var testScript = regexp.MustCompile(`^test_.*\.py$|_test\.py$|\.(test|spec)\.[jt]sx?$`)

// inDir is true when one of name's directories is dir.
func inDir(name, dir string) bool {
	for _, seg := range strings.Split(path.Dir(name), "/") {
		if seg == dir {
			return true
		}
	}
	return false
}

// triageLabels are the labels the changed files call for, sorted, at most
// maxLabels, and never none.
func triageLabels(files []api.PullRequestFile) []string {
	var labels []string
	for _, rule := range labelRules {
		for _, f := range files {
			if rule.match(f.Filename) {
				labels = append(labels, rule.label)
				break
			}
		}
	}
	sort.Strings(labels)
	if len(labels) > maxLabels {
		labels = labels[:maxLabels]
	}
	if len(labels) == 0 {
		return []string{fallbackLabel}
	}
	return labels
}

// followUpMarker is what a follow-up issue is filed for. It is narrower than
// the review's todoMarker: XXX and HACK flag code, not work to be tracked.
var followUpMarker = regexp.MustCompile(`\b(TODO|FIXME)\b`)

// followUp is one TODO or FIXME on an added line.
type followUp struct {
	File   string
	Line   int
	Marker string
	// Text is what the line says after the marker, defused; empty when the
	// line says nothing more or may hold a secret.
	Text string
	// Quoted is the whole line, defused and bounded; empty when it may hold
	// a secret.
	Quoted string
}

// markerLead is what separates a marker from its text: "TODO(alice): ".
var markerLead = regexp.MustCompile(`^(\([^)]*\))?\s*[:\-–—]*\s*`)

// followUps are the first maxFollowUps markers of the added lines, in file
// order then line order.
func followUps(files []api.PullRequestFile) []followUp {
	var out []followUp
	for _, f := range files {
		for _, l := range addedLines(f.Patch) {
			loc := followUpMarker.FindStringSubmatchIndex(l.Text)
			if loc == nil || l.Number < 1 {
				continue
			}
			fu := followUp{File: f.Filename, Line: l.Number, Marker: l.Text[loc[2]:loc[3]]}
			if secretKind(l.Text) == "" {
				rest := markerLead.ReplaceAllString(l.Text[loc[1]:], "")
				rest = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "*/"))
				fu.Text = defuse(strings.TrimSuffix(rest, "-->"))
				fu.Quoted = clipRunes(defuse(l.Text), maxQuotedRunes)
			}
			out = append(out, fu)
			if len(out) == maxFollowUps {
				return out
			}
		}
	}
	return out
}

// defuse makes the pull request author's text one plain line: control
// characters become spaces, invisible format characters (bidirectional
// overrides among them) go, and no "<!--" is left to pass for an operation
// marker.
func defuse(s string) string {
	s = strings.Map(func(r rune) rune {
		switch {
		case unicode.IsControl(r):
			return ' '
		case unicode.Is(unicode.Cf, r):
			return -1
		}
		return r
	}, s)
	return breakCommentOpeners(oneLine(s))
}

// clipRunes shortens s to at most n characters, the last one "…".
func clipRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	runes := []rune(s)
	return string(runes[:n-1]) + "…"
}

// issueArgs are create_issue's arguments.
type issueArgs struct {
	Title string `json:"title"`
	Body  string `json:"body"`
}

// issue is the follow-up issue of fu, found on the pull request named pr.
func (fu followUp) issue(pr string) issueArgs {
	what := fu.Text
	if what == "" {
		what = fmt.Sprintf("%s in %s line %d", fu.Marker, defuse(clipRunes(fu.File, maxQuotedRunes)), fu.Line)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s adds a %s marker in %s line %d:\n\n", pr, codeSpan(fu.Marker), codeSpan(clipRunes(fu.File, maxQuotedRunes)), fu.Line)
	if fu.Quoted != "" {
		fmt.Fprintf(&b, "%s\n\n", codeSpan(fu.Quoted))
	} else {
		b.WriteString("The line is not copied here: it may hold a secret. See the pull request's diff.\n\n")
	}
	b.WriteString("Filed by the offline triage so that the work is tracked once the pull request merges.\n")
	return issueArgs{
		Title: "Follow up: " + clipRunes(what, maxTitleRunes),
		Body:  breakCommentOpeners(b.String()),
	}
}

// proposeTriage asks, in one turn, for the labels and the follow-up issues
// the offered tools allow; the workflow runs the calls in order.
func (c conversation) proposeTriage(pr api.PullRequest, files []api.PullRequestFile, tools []api.ToolSpec, turn int) (api.ModelDecision, error) {
	label := c.label(&pr)
	calls := newTurnCalls(turn)
	if offered(tools, api.ToolAddLabels) {
		if err := calls.add(api.ToolAddLabels, labelArgs{Labels: triageLabels(files)}); err != nil {
			return api.ModelDecision{}, err
		}
	}
	if offered(tools, api.ToolCreateIssue) {
		for _, fu := range followUps(files) {
			if err := calls.add(api.ToolCreateIssue, fu.issue(label)); err != nil {
				return api.ModelDecision{}, err
			}
		}
	}
	if len(calls.calls) == 0 {
		return final(fmt.Sprintf("Triaged %s: its added lines have no TODO or FIXME, so no follow-up issue was filed, "+
			"and the %s tool is not offered, so no label was added.", label, api.ToolAddLabels)), nil
	}
	return api.ModelDecision{ToolCalls: calls.calls}, nil
}

// labelArgs are add_labels' arguments.
type labelArgs struct {
	Labels []string `json:"labels"`
}

// isTriageCall is true for the calls a triage proposes.
func isTriageCall(call api.ToolCall) bool {
	return call.Name == api.ToolAddLabels || call.Name == api.ToolCreateIssue
}

// proposedTriage is true once the assistant asked for a triage action: the
// triage is proposed once per run, whatever became of it.
func (c conversation) proposedTriage() bool {
	for _, call := range c.calls {
		if isTriageCall(call) {
			return true
		}
	}
	return false
}

// triageOutcome is the final answer once the triage's calls have answered:
// what was labelled and filed, and what was refused, expired or failed.
func (c conversation) triageOutcome(tools []api.ToolSpec) api.ModelDecision {
	var pr *api.PullRequest
	if c.fetched() {
		p := c.pullRequest()
		pr = &p
	}
	var lines []string
	missed, total, issues := 0, 0, 0
	for _, call := range c.calls {
		if !isTriageCall(call) {
			continue
		}
		total++
		if call.Name == api.ToolCreateIssue {
			issues++
		}
		line, done := c.triageLine(call)
		if !done {
			missed++
		}
		lines = append(lines, "- "+line)
	}
	if issues == 0 && offered(tools, api.ToolCreateIssue) {
		lines = append(lines, "- Its added lines have no TODO or FIXME, so no follow-up issue was filed.")
	}
	head := fmt.Sprintf("Triaged %s.", c.label(pr))
	if missed > 0 {
		head = fmt.Sprintf("Triaged %s only in part: %d of %d %s did not go through.",
			c.label(pr), missed, total, plural(total, "action", "actions"))
	}
	return final(head + "\n" + strings.Join(lines, "\n"))
}

// triageLine says what became of one triage call; done is false when it did
// not happen or may not have.
func (c conversation) triageLine(call api.ToolCall) (string, bool) {
	var args struct {
		Labels []string `json:"labels"`
		Title  string   `json:"title"`
	}
	_ = json.Unmarshal(call.Arguments, &args)
	what, do, doing, done, made := "the issue "+quote(args.Title), "file", "Filing", "filed", "issue"
	if call.Name == api.ToolAddLabels {
		what, do, doing, done, made = "the labels "+quoteList(args.Labels), "add", "Adding", "added", ""
	}
	result, answered := c.answers[call.ID]
	res, ok := decodeAction(result)
	switch {
	case !answered:
		return doing + " " + what + " may not have happened: no result came back.", false
	case !ok:
		return fmt.Sprintf("Did not %s %s: %s.", do, what, quote(result)), false
	case made == "":
		res = actionResult{AlreadyExisted: res.AlreadyExisted}
	}
	if res.AlreadyExisted {
		return fmt.Sprintf("Found %s already %s%s%s; nothing new was done.", what, done, asID(made, res.ID), atURL(res.URL)), true
	}
	return fmt.Sprintf("%s%s %s%s%s.", strings.ToUpper(done[:1]), done[1:], what, asID(made, res.ID), atURL(res.URL)), true
}

// quoteList names labels one by one, each quoted.
func quoteList(labels []string) string {
	quoted := make([]string, len(labels))
	for i, l := range labels {
		quoted[i] = quote(l)
	}
	return strings.Join(quoted, ", ")
}
