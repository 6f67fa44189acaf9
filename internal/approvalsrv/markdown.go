// This file renders an action's preview the way its target will show it:
// the Markdown of a GitHub comment, review or issue body, as GitHub renders
// it, so that an approver sees the table, the folded <details> and the link
// text a reader will see, beside the raw text, which stays what is approved.
//
// The preview is written by the model, and so, through the pull request it
// reads, by the PR author: the rendered HTML is sanitized to an allow list
// that runs no script, loads nothing, and cannot pose as the page's own
// elements, and it must work under the page's CSP (securityHeaders).

package approvalsrv

import (
	"html/template"
	"strings"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/ghmarkdown"
)

// markdownBody is the part of a preview that the action's target renders as
// Markdown, and whether it has one. It reads the previews of tools/ghtools;
// a preview of another shape shows raw only, so a change there costs the
// rendered view, never its safety.
func markdownBody(tool, preview string) (string, bool) {
	switch tool {
	case api.ToolCreateIssueComment:
		return preview, preview != ""
	case api.ToolCreatePullRequestReview:
		// "Review (EVENT) on ref[, with N inline comments]:\n" body, then the
		// quoted inline comments, each on one line.
		head, body, ok := strings.Cut(preview, "\n")
		if !ok || !strings.HasPrefix(head, "Review (") || !strings.HasSuffix(head, ":") {
			return "", false
		}
		if strings.Contains(head, ", with ") {
			i := strings.LastIndex(body, "\n\nInline comments:")
			if i < 0 {
				return "", false
			}
			body = body[:i]
		}
		return body, body != ""
	case api.ToolCreateIssue:
		// "New issue in ref\nTitle: …\nLabels: …\n\n" body; the title and
		// labels are quoted, so the first blank line ends them.
		head, body, ok := strings.Cut(preview, "\n\n")
		if !ok || !strings.HasPrefix(head, "New issue in ") {
			return "", false
		}
		return body, body != ""
	}
	return "", false
}

// renderMarkdown is body as the target shows it (ghmarkdown.Render).
func renderMarkdown(body string) template.HTML { return ghmarkdown.Render(body) }
