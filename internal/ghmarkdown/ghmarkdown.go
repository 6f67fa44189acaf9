// Package ghmarkdown renders Markdown the way GitHub shows a comment, an
// issue or a review body: GitHub-flavoured Markdown, sanitized to an allow
// list that runs no script, loads nothing (images become links that say
// so) and cannot pose as the page's own elements. The approval page shows
// an action's body with it before it is approved; the sandbox's pull
// request page shows the posted comments with it, hidden markers hidden.
package ghmarkdown

import (
	"bytes"
	"html/template"
	"regexp"
	"strconv"

	"github.com/microcosm-cc/bluemonday"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

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

// Render is body as GitHub would show it, sanitized; "" for a body
// goldmark cannot render, which a page then shows raw only. An HTML
// comment (an operation's hidden marker) shows nothing, as on GitHub.
func Render(body string) template.HTML {
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
