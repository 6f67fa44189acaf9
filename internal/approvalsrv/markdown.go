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
	"bytes"
	"html/template"
	"regexp"
	"strconv"
	"strings"

	"github.com/microcosm-cc/bluemonday"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"

	"github.com/agentrun/agentrun/api"
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

// gitHubMarkdown is GFM (goldmark's extension.GFM, spelled out so that a
// table's alignment is an attribute the sanitizer can check rather than a
// style the CSP would drop). Raw HTML passes to the sanitizer, as GitHub
// passes it to its own; images become links (imagesAsLinks).
var gitHubMarkdown = goldmark.New(
	goldmark.WithExtensions(
		extension.Linkify,
		extension.NewTable(extension.WithTableCellAlignMethod(extension.TableCellAlignAttribute)),
		extension.Strikethrough,
		extension.TaskList,
	),
	goldmark.WithParserOptions(parser.WithASTTransformers(imagesAsLinksPriority)),
	goldmark.WithRendererOptions(html.WithUnsafe()),
)

var imagesAsLinksPriority = util.Prioritized(imagesAsLinks{}, 100)

// previewPolicy is stricter than bluemonday's UGCPolicy: no id or name
// (which could clobber the page's own elements, #preview or #reason), no
// class or style, no images or media, no forms, and links only to absolute
// http, https or mailto URLs (a relative one would point at this server).
var previewPolicy = func() *bluemonday.Policy {
	p := bluemonday.NewPolicy()
	p.AllowElements("p", "br", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "pre", "code",
		"em", "strong", "b", "i", "u", "del", "s", "strike", "ins", "sub", "sup", "kbd", "samp", "var", "mark",
		"abbr", "ul", "li", "dl", "dt", "dd", "table", "thead", "tbody", "tfoot", "tr", "summary", "span", "div",
		"ruby", "rt", "rp", "q", "cite", "small")
	p.AllowAttrs("start").Matching(regexp.MustCompile(`^[0-9]{1,9}$`)).OnElements("ol")
	p.AllowElements("ol")
	p.AllowAttrs("align").Matching(regexp.MustCompile(`^(left|center|right)$`)).OnElements("th", "td")
	p.AllowElements("th", "td")
	p.AllowAttrs("open").Matching(regexp.MustCompile(`(?i)^(|open)$`)).OnElements("details")
	p.AllowElements("details")
	// GFM task lists: a disabled checkbox outside any form.
	p.AllowAttrs("type").Matching(regexp.MustCompile(`^checkbox$`)).OnElements("input")
	p.AllowAttrs("checked", "disabled").Matching(regexp.MustCompile(`^$`)).OnElements("input")
	p.AllowAttrs("href").OnElements("a")
	p.AllowURLSchemes("http", "https", "mailto")
	p.AllowRelativeURLs(false)
	p.RequireParseableURLs(true)
	p.RequireNoFollowOnLinks(true)
	p.RequireNoReferrerOnLinks(true)
	p.AddTargetBlankToFullyQualifiedLinks(true)
	return p
}()

// renderMarkdown is body as GitHub would show it, sanitized; a body
// goldmark cannot render shows raw only.
func renderMarkdown(body string) template.HTML {
	var out bytes.Buffer
	if err := gitHubMarkdown.Convert([]byte(body), &out); err != nil {
		return ""
	}
	// The sanitizer's output is the page's own HTML from here on.
	return template.HTML(previewPolicy.SanitizeBytes(out.Bytes())) //nolint:gosec // sanitized by previewPolicy
}

// imagesAsLinks turns each Markdown image into a link that says it is one:
// the page loads no image a PR author names (GitHub proxies them; this
// server does not), and the approver still sees where it points.
type imagesAsLinks struct{}

func (imagesAsLinks) Transform(doc *ast.Document, reader text.Reader, _ parser.Context) {
	var images []*ast.Image
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if img, ok := n.(*ast.Image); ok && entering {
			images = append(images, img)
		}
		return ast.WalkContinue, nil
	})
	for _, img := range images {
		link := ast.NewLink()
		link.Destination, link.Title = img.Destination, img.Title
		link.AppendChild(link, ast.NewString([]byte("image: ")))
		for c := img.FirstChild(); c != nil; {
			next := c.NextSibling()
			link.AppendChild(link, c)
			c = next
		}
		if link.ChildCount() == 1 {
			link.AppendChild(link, ast.NewString([]byte(strconv.Quote(string(img.Destination)))))
		}
		img.Parent().ReplaceChild(img.Parent(), img, link)
	}
}
