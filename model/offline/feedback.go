package offline

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"

	"github.com/agentrun/agentrun/api"
)

// revisions are what a reviewer's feedback on earlier proposals asks of the
// next one, every answer so far taken together. The offline model
// understands two requests, in any wording around them: "shorter" leaves
// out the findings' details (the bullets, the inline comments), and "skip
// file X" leaves out file X.
type revisions struct {
	shorter bool
	skip    []string
}

// skipFile finds "skip file X" (or "skip X") in feedback; X ends at a space
// and loses the quotes and punctuation around it.
var skipFile = regexp.MustCompile(`(?i)\bskip\s+(?:the\s+)?(?:file\s+)?(\S+)`)

// feedback reads every answer to the actions the model proposed, in order,
// and reports the revisions they ask for; pending is true when the latest
// action's answer is feedback, so the model proposes again.
func (c conversation) feedback() (r revisions, pending bool) {
	for _, call := range c.calls {
		if call.Name != api.ToolCreateIssueComment && call.Name != api.ToolCreatePullRequestReview {
			continue
		}
		answer, answered := c.answers[call.ID]
		if !answered {
			continue
		}
		_, text, ok := api.ParseFeedbackResult(answer)
		pending = ok
		if !ok {
			continue
		}
		if strings.Contains(strings.ToLower(text), "shorter") {
			r.shorter = true
		}
		for _, m := range skipFile.FindAllStringSubmatch(text, -1) {
			if name := strings.Trim(m[1], "`'\".,;:!?()[]"); name != "" && !slices.Contains(r.skip, name) {
				r.skip = append(r.skip, name)
			}
		}
	}
	return r, pending
}

// files leaves out the files the feedback asked to skip.
func (r revisions) files(files []api.PullRequestFile) []api.PullRequestFile {
	if len(r.skip) == 0 {
		return files
	}
	var kept []api.PullRequestFile
	for _, f := range files {
		if !slices.Contains(r.skip, f.Filename) {
			kept = append(kept, f)
		}
	}
	return kept
}

// withEditor adds to a final answer who edited the action before it ran,
// as its result says (api.EditedResult): what ran is theirs, not the
// model's proposal.
func withEditor(d api.ModelDecision, result string) api.ModelDecision {
	if by := editedBy(result); by != "" {
		d.Final += " " + clip(oneLine(by), 100) + " edited it before it was posted."
	}
	return d
}

// editedBy is who edited the action whose result this is, or "".
func editedBy(result string) string {
	var edited struct {
		EditedBy string `json:"editedBy"`
	}
	if json.Unmarshal([]byte(result), &edited) != nil {
		return ""
	}
	return edited.EditedBy
}
