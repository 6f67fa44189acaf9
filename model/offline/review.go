package offline

import (
	"context"
	"fmt"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/agentrun/agentrun/api"
)

// The offline reviewer's finding rules. Each rule reads the added lines of a
// unified diff (or the file list as a whole) and reports findings that carry
// the file and the line in the new file, never the offending text itself: a
// finding may sit on a line that holds a secret.

// FindingKind names what a finding is about.
type FindingKind string

const (
	FindingTodo           FindingKind = "todo"
	FindingDebugPrint     FindingKind = "debug_print"
	FindingSecret         FindingKind = "secret"
	FindingLargeFile      FindingKind = "large_file"
	FindingLargePR        FindingKind = "large_pr"
	FindingUntestedChange FindingKind = "untested_package"
	FindingTruncatedPatch FindingKind = "truncated_patch"
	FindingNoPatch        FindingKind = "no_patch"
	FindingOmittedPatch   FindingKind = "omitted_patch"
)

// Thresholds of the size rules.
const (
	largeFileAddedLines = 400
	largePRAddedLines   = 1000
)

// Finding is one thing the reviewer wants a person to look at.
type Finding struct {
	Kind FindingKind
	File string // empty for findings about the whole pull request
	Line int    // line in the new file; 0 when the finding is not about one line
	// Detail says what was found in words safe to publish: a marker name, a
	// call name or a secret kind, never a secret value.
	Detail string
	// Names are the files an untested_package finding is about; the comment
	// quotes each on its own, since any of them may hold ", " or Markdown.
	Names []string
}

// addedLine is one "+" line of a patch with its line number in the new file.
type addedLine struct {
	Number int
	Text   string
}

var hunkHeader = regexp.MustCompile(`^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@`)

// addedLines walks a unified diff and returns its added lines numbered as in
// the new file. It trusts the hunk header counts to know where a hunk ends, so
// that an added line whose text starts with "++" is not mistaken for a file
// header, and lines outside any hunk are skipped.
func addedLines(patch string) []addedLine {
	var out []addedLine
	var newLine, oldLeft, newLeft int
	for _, raw := range strings.Split(patch, "\n") {
		text := strings.TrimSuffix(raw, "\r")
		if oldLeft <= 0 && newLeft <= 0 {
			m := hunkHeader.FindStringSubmatch(text)
			if m == nil {
				continue
			}
			oldLeft, newLeft = hunkLength(m[2]), hunkLength(m[4])
			newLine, _ = strconv.Atoi(m[3])
			continue
		}
		if text == "" {
			// Some tools strip the single space of an empty context line.
			text = " "
		}
		switch text[0] {
		case '+':
			out = append(out, addedLine{Number: newLine, Text: text[1:]})
			newLine++
			newLeft--
		case '-':
			oldLeft--
		case ' ':
			newLine++
			oldLeft--
			newLeft--
		case '\\':
			// "\ No newline at end of file" belongs to neither side.
		default:
			// Not a diff line: the patch is malformed from here, stop counting.
			oldLeft, newLeft = 0, 0
		}
	}
	return out
}

// hunkLength reads the optional length of a hunk range; absent means 1.
func hunkLength(s string) int {
	if s == "" {
		return 1
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0
	}
	return n
}

var todoMarker = regexp.MustCompile(`\b(TODO|FIXME|XXX|HACK)\b`)

// debugCalls are debug output wherever they appear.
var debugCalls = []*regexp.Regexp{
	regexp.MustCompile(`(^|[^.\w])println\(`),
	regexp.MustCompile(`\bconsole\.(log|debug)\(`),
	regexp.MustCompile(`\bspew\.(Dump|Sdump|Fdump|Printf)\(`),
	regexp.MustCompile(`\blog\.Print(f|ln)?\(\s*"DEBUG`),
	regexp.MustCompile(`\bpdb\.set_trace\(\)|(^|[^.\w])breakpoint\(\)`),
	regexp.MustCompile(`^\s*debugger;?\s*$`),
}

// printCalls are ordinary output calls; they count as debug output only when
// the line also says so, because a program's user output is legitimate.
var printCalls = []*regexp.Regexp{
	regexp.MustCompile(`\bfmt\.Print(f|ln)?\(`),
	regexp.MustCompile(`\bSystem\.out\.print(ln)?\(`),
	regexp.MustCompile(`(^|[^.\w])print\(`),
	regexp.MustCompile(`^\s*puts\b`),
}

var debugWords = regexp.MustCompile(`(?i)debug|\bXXX\b`)

// debugPrint returns the debug output call on a line, such as "println(", or "".
func debugPrint(line string) string {
	for _, call := range debugCalls {
		if m := call.FindString(line); m != "" {
			return callName(m)
		}
	}
	if !debugWords.MatchString(line) {
		return ""
	}
	for _, call := range printCalls {
		if m := call.FindString(line); m != "" {
			return callName(m)
		}
	}
	return ""
}

// callName drops what a call pattern matched before the call itself.
func callName(match string) string {
	return strings.TrimSpace(strings.TrimLeftFunc(match, func(r rune) bool { return !unicode.IsLetter(r) }))
}

// secretPatterns are checked in order; the first match names the kind.
var secretPatterns = []struct {
	pattern *regexp.Regexp
	kind    string
}{
	{regexp.MustCompile(`-----BEGIN ([A-Z0-9]+ )*PRIVATE KEY( BLOCK)?-----`), "a private key"},
	{regexp.MustCompile(`\bAKIA[0-9A-Z]{16}\b`), "an AWS access key ID"},
	{regexp.MustCompile(`\b(gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})\b`), "a GitHub token"},
}

// credentialAssignment matches secret-looking names given a quoted literal, in
// Go, Python, JS, YAML and JSON spellings.
var credentialAssignment = regexp.MustCompile(
	`(?i)\w*(secret|passw(or)?d|token|api[_-]?key)\w*["']?\s*(:=|==|=|:)\s*["'` + "`" + `]([^"'` + "`" + `\s]{8,})["'` + "`" + `]`)

// placeholderValue recognises literals that name or stand for a secret
// without being one: environment variable names and template holes.
var placeholderValue = regexp.MustCompile(`^[A-Z][A-Z0-9_]*$|\$\{|\{\{|<[^>]*>|(?i)^(changeme|placeholder|example|redacted|x+|\*+)$`)

// secretKind returns what kind of secret a line seems to hold, or "".
func secretKind(line string) string {
	for _, s := range secretPatterns {
		if s.pattern.MatchString(line) {
			return s.kind
		}
	}
	for _, m := range credentialAssignment.FindAllStringSubmatch(line, -1) {
		if m[3] == "==" {
			continue // a comparison, not an assignment
		}
		if !placeholderValue.MatchString(m[4]) {
			return "a hard-coded " + strings.ToLower(m[1]) + " literal"
		}
	}
	return ""
}

// proseExtensions are files where a print call is an example, not code.
var proseExtensions = map[string]bool{".md": true, ".markdown": true, ".rst": true, ".txt": true, ".adoc": true}

// lineFindings applies the per-line rules to one file's added lines.
func lineFindings(file string, lines []addedLine) []Finding {
	checkDebug := !proseExtensions[strings.ToLower(path.Ext(file))]
	var out []Finding
	for _, l := range lines {
		if kind := secretKind(l.Text); kind != "" {
			out = append(out, Finding{Kind: FindingSecret, File: file, Line: l.Number, Detail: kind})
		}
		if m := todoMarker.FindString(l.Text); m != "" {
			out = append(out, Finding{Kind: FindingTodo, File: file, Line: l.Number, Detail: m})
		}
		if !checkDebug {
			continue
		}
		if call := debugPrint(l.Text); call != "" {
			out = append(out, Finding{Kind: FindingDebugPrint, File: file, Line: l.Number, Detail: call})
		}
	}
	return out
}

// fileFindings applies the rules about one file as a whole; added is the
// larger of GitHub's count and the added lines the patch shows.
func fileFindings(f api.PullRequestFile, added int) []Finding {
	var out []Finding
	if added > largeFileAddedLines {
		out = append(out, Finding{Kind: FindingLargeFile, File: f.Filename, Detail: strconv.Itoa(added)})
	}
	switch {
	case f.PatchTruncated:
		shown := strconv.Itoa(len(f.Patch))
		if f.PatchBytes > 0 {
			shown += " of " + strconv.Itoa(f.PatchBytes)
		}
		out = append(out, Finding{Kind: FindingTruncatedPatch, File: f.Filename, Detail: shown})
	case f.PatchOmitted:
		out = append(out, Finding{Kind: FindingOmittedPatch, File: f.Filename})
	case f.Patch == "" && contentChanged(f):
		out = append(out, Finding{Kind: FindingNoPatch, File: f.Filename})
	}
	return out
}

// contentChanged is true when a file's content changed, whether or not
// GitHub counted lines: a binary file counts none.
func contentChanged(f api.PullRequestFile) bool {
	switch f.Status {
	case "removed":
		return false
	case "added", "modified", "changed":
		return true
	default: // renamed, copied, unchanged: changed only if lines did
		return f.Additions+f.Deletions > 0
	}
}

// untestedPackages reports every directory whose non-test Go files changed
// while none of its _test.go files did.
func untestedPackages(files []api.PullRequestFile) []Finding {
	changed := map[string][]string{}
	tested := map[string]bool{}
	for _, f := range files {
		name := f.Filename
		if !strings.HasSuffix(name, ".go") || outsideGoPackages(name) {
			continue
		}
		dir := path.Dir(name)
		if strings.HasSuffix(name, "_test.go") {
			tested[dir] = true
			continue
		}
		if f.Status != "removed" {
			changed[dir] = append(changed[dir], path.Base(name))
		}
	}
	dirs := make([]string, 0, len(changed))
	for dir := range changed {
		if !tested[dir] {
			dirs = append(dirs, dir)
		}
	}
	sort.Strings(dirs)
	out := make([]Finding, 0, len(dirs))
	for _, dir := range dirs {
		out = append(out, Finding{Kind: FindingUntestedChange, File: dir, Detail: strings.Join(changed[dir], ", "), Names: changed[dir]})
	}
	return out
}

// outsideGoPackages is true for Go files that no test of theirs could cover.
func outsideGoPackages(name string) bool {
	return inDir(name, "testdata") || inDir(name, "vendor")
}

// maxNamedFiles is how many files the comment names where it speaks of many
// at once (one omitted_patch finding, the files left out): past the budgets,
// a vendoring pull request has hundreds, and one line per file would bury
// every other finding.
const maxNamedFiles = 10

// omittedPatches is one finding about every file whose patch the listing
// left out: naming one file, or the first maxOmittedNames and a count.
func omittedPatches(files []string) []Finding {
	switch len(files) {
	case 0:
		return nil
	case 1:
		return []Finding{{Kind: FindingOmittedPatch, File: files[0]}}
	}
	return []Finding{{Kind: FindingOmittedPatch, Detail: strconv.Itoa(len(files)), Names: files[:min(len(files), maxNamedFiles)]}}
}

// Review is the outcome of reviewing one pull request.
type Review struct {
	Findings   []Finding
	Files      int
	Additions  int
	Deletions  int
	Unreviewed int // files whose patch was truncated or absent
	// Brief leaves the findings' details out of the comment, as feedback
	// asking for a shorter review does.
	Brief bool
	// LeftOut are the files the listing left out past its read bound:
	// none of them was reviewed, and the comment names them.
	LeftOut *api.LeftOutFiles
	// Unlisted counts the changed files GitHub did not list at all.
	Unlisted int
	// Range is the part of the pull request the listing covered, when a
	// push started the review (api.ReviewRange).
	Range *api.ReviewRange
}

// reviewFiles runs every rule over a pull request. Findings come in the order
// of the file list, each file's by line, then the package and size findings.
func reviewFiles(ctx context.Context, pr api.PullRequest, files []api.PullRequestFile) (Review, error) {
	r := Review{Files: len(files)}
	var omitted []string
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return Review{}, fmt.Errorf("review %s: %w", f.Filename, err)
		}
		added := addedLines(f.Patch)
		additions := max(f.Additions, len(added))
		r.Additions += additions
		r.Deletions += f.Deletions
		r.Findings = append(r.Findings, lineFindings(f.Filename, added)...)
		for _, w := range fileFindings(f, additions) {
			switch w.Kind {
			case FindingOmittedPatch:
				r.Unreviewed++
				omitted = append(omitted, w.File)
				continue
			case FindingTruncatedPatch, FindingNoPatch:
				r.Unreviewed++
			}
			r.Findings = append(r.Findings, w)
		}
	}
	r.Findings = append(r.Findings, omittedPatches(omitted)...)
	r.Findings = append(r.Findings, untestedPackages(files)...)
	// GitHub's own count covers files beyond the listed ones.
	r.Additions = max(r.Additions, pr.Additions)
	r.Deletions = max(r.Deletions, pr.Deletions)
	if r.Additions > largePRAddedLines {
		r.Findings = append(r.Findings, Finding{Kind: FindingLargePR, Detail: strconv.Itoa(r.Additions)})
	}
	return r, nil
}

// maxListedFindings keeps a comment on a huge pull request readable and far
// below GitHub's 65536-character comment limit.
const maxListedFindings = 50

// commentBody renders a review as the Markdown of the pull request comment.
// heading names the pull request; goal is the run's goal, if any.
func (r Review) commentBody(heading, goal string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## Review of %s\n\n", heading)
	if r.Range != nil {
		fmt.Fprintf(&b, "%s.\n\n", rangeSentence(*r.Range))
	}
	if goal != "" {
		fmt.Fprintf(&b, "Goal: %s\n\n", goal)
	}
	if len(r.Findings) == 0 {
		b.WriteString("No findings: nothing to flag in the changed lines.\n\n")
	} else if r.Brief {
		fmt.Fprintf(&b, "**%s** (details left out, as the reviewer asked)\n\n", countFindings(len(r.Findings)))
	} else {
		fmt.Fprintf(&b, "**%s**\n\n", countFindings(len(r.Findings)))
		for i, f := range r.Findings {
			if i == maxListedFindings {
				fmt.Fprintf(&b, "- …and %d more not listed here.\n", len(r.Findings)-i)
				break
			}
			fmt.Fprintf(&b, "- %s\n", f.sentence())
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "What I checked: %d %s (+%d −%d) for added TODO/FIXME/XXX/HACK markers, "+
		"leftover debug output, committed secrets, very large additions, Go packages changed without tests, "+
		"and truncated patches.", r.Files, plural(r.Files, "file", "files"), r.Additions, r.Deletions)
	if r.Unreviewed > 0 {
		fmt.Fprintf(&b, " %d %s could not be fully reviewed.", r.Unreviewed, plural(r.Unreviewed, "file", "files"))
	}
	b.WriteString("\n")
	if r.LeftOut != nil {
		fmt.Fprintf(&b, "\n%s\n", leftOutSentence(*r.LeftOut))
	}
	if r.Unlisted > 0 {
		fmt.Fprintf(&b, "\nGitHub did not list %s more changed %s (it lists at most 3,000 of a pull request's files); not reviewed.\n",
			thousands(r.Unlisted), plural(r.Unlisted, "file", "files"))
	}
	return b.String()
}

// rangeSentence says what part of the pull request the review covers:
// "Reviewed only the change since 9f3c2a7, the last head reviewed and
// posted: 2 commits" or "Full review: …, a force-push or a rebase".
func rangeSentence(r api.ReviewRange) string {
	if r.Full {
		return "Full review: " + strings.TrimPrefix(r.Reason, "full review: ")
	}
	return "Reviewed " + r.Reason
}

// leftOutSentence says which files a review did not read and why: "Left out
// 2,950 files past the 384 KiB read bound, not reviewed: `vendor/a.go`,
// `vendor/b.go` and 2,948 more."
func leftOutSentence(l api.LeftOutFiles) string {
	named := l.Names[:min(len(l.Names), maxNamedFiles)]
	names := codeSpans(named)
	if more := l.Count - len(named); more > 0 && names != "" {
		names += fmt.Sprintf(" and %s more", thousands(more))
	}
	s := fmt.Sprintf("Left out %s %s past the %d KiB read bound, not reviewed", thousands(l.Count), plural(l.Count, "file", "files"), l.BoundBytes>>10)
	if names == "" {
		return s + "."
	}
	return s + ": " + names + "."
}

// leftOutCount is what a final answer adds about the files left out.
func (r Review) leftOutCount() string {
	if r.LeftOut == nil {
		return ""
	}
	return fmt.Sprintf(", %s %s left out", thousands(r.LeftOut.Count), plural(r.LeftOut.Count, "file", "files"))
}

// thousands writes n with thousands separators, as people read counts.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// sentence is a finding as one Markdown bullet's text.
func (f Finding) sentence() string {
	where := codeSpan(f.File)
	if f.Line > 0 {
		where += fmt.Sprintf(" line %d", f.Line)
	}
	switch f.Kind {
	case FindingTodo, FindingDebugPrint, FindingSecret:
		return where + ": " + f.remark()
	case FindingLargeFile:
		return fmt.Sprintf("%s: very large addition (%s lines added); consider splitting it.", where, f.Detail)
	case FindingLargePR:
		return fmt.Sprintf("The pull request adds %s lines; consider splitting it into smaller ones.", f.Detail)
	case FindingUntestedChange:
		return fmt.Sprintf("%s: Go package changed (%s) with no `_test.go` change in it.", packageName(f.File), codeSpans(f.Names))
	case FindingTruncatedPatch:
		return fmt.Sprintf("%s: patch truncated (%s bytes shown); not fully reviewed.", where, f.Detail)
	case FindingNoPatch:
		return fmt.Sprintf("%s: no patch (binary or too large); not reviewed.", where)
	case FindingOmittedPatch:
		if f.File != "" {
			return fmt.Sprintf("%s: patch left out, the pull request's patches together being too large; not reviewed.", where)
		}
		n, _ := strconv.Atoi(f.Detail)
		names := codeSpans(f.Names)
		if more := n - len(f.Names); more > 0 {
			names += fmt.Sprintf(" and %s more", thousands(more))
		}
		return fmt.Sprintf("%s files listed without their patch, the pull request's patches together being too large; not reviewed: %s.", thousands(n), names)
	default:
		return fmt.Sprintf("%s: %s.", where, f.Detail)
	}
}

// remark is what a line finding says about its line, as the comment's
// bullet and a review's inline comment both say it.
func (f Finding) remark() string {
	switch f.Kind {
	case FindingTodo:
		return fmt.Sprintf("new %s marker; resolve it or track it in an issue.", codeSpan(f.Detail))
	case FindingDebugPrint:
		return fmt.Sprintf("leftover debug output (%s); remove it before merging.", codeSpan(f.Detail))
	case FindingSecret:
		return fmt.Sprintf("looks like %s committed to the repository; remove it and rotate it, "+
			"as it stays in the git history.", f.Detail)
	default:
		return f.Detail + "."
	}
}

// packageName shows a package directory, the repository root included.
func packageName(dir string) string {
	if dir == "." {
		return "The root package"
	}
	return codeSpan(dir + "/")
}

// codeSpan quotes a name from the diff as Markdown code, whatever it holds.
// The fence is one backtick longer than the longest run inside, as CommonMark
// requires for the span to end where we mean it to, and padded with a space
// when the name touches a backtick or the padding rule would eat its own
// spaces. Inside a code span nothing is escaped, so an HTML comment opener is
// broken with a zero-width space: GitHub shows the same text, but the posted
// body holds no "<!--" that could pass for an operation marker.
func codeSpan(s string) string {
	s = breakCommentOpeners(strings.NewReplacer("\n", " ", "\r", " ").Replace(s))
	fence := strings.Repeat("`", longestBacktickRun(s)+1)
	pad := ""
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") ||
		(strings.HasPrefix(s, " ") && strings.HasSuffix(s, " ") && strings.Trim(s, " ") != "") {
		pad = " "
	}
	return fence + pad + s + pad + fence
}

// breakCommentOpeners puts a zero-width space into every "<!--": the text
// reads the same, but holds nothing that could pass for an operation marker.
func breakCommentOpeners(s string) string { return strings.ReplaceAll(s, "<!--", "<\u200b!--") }

// codeSpans quotes each name on its own: a file name is the pull request
// author's text and must not become Markdown, a link or a mention.
func codeSpans(names []string) string {
	quoted := make([]string, len(names))
	for i, name := range names {
		quoted[i] = codeSpan(name)
	}
	return strings.Join(quoted, ", ")
}

func longestBacktickRun(s string) int {
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] != '`' {
			run = 0
			continue
		}
		run++
		longest = max(longest, run)
	}
	return longest
}

// countFindings says how many findings there are, in words.
func countFindings(n int) string {
	if n == 0 {
		return "no findings"
	}
	return fmt.Sprintf("%d %s", n, plural(n, "finding", "findings"))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
