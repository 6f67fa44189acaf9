package approvalsrv

import (
	"bytes"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"

	"github.com/agentrun/agentrun/api"
)

// hostilePreview is a comment a PR author steered the model into writing:
// every way it knows to run script on the approver's page, around Markdown
// that GitHub would format.
const hostilePreview = "**bold** and _soft_\n\n" +
	"<script>document.title='pwned-script'</script>\n\n" +
	"<img src=x onerror=\"document.title='pwned-img'\">\n\n" +
	"[click me](javascript:alert(1)) and [docs](https://example.com/docs)\n\n" +
	"<iframe src=\"https://evil.example/frame\"></iframe>\n\n" +
	"<details><summary>Inline findings</summary>\n\n- `cache.go`: leftover print\n\n</details>\n\n" +
	"<a id=\"reason\" href=\"https://evil.example\" onclick=\"document.title='pwned-click'\" style=\"position:fixed\">fake button</a>\n\n" +
	"![tracker](https://evil.example/pixel.png)\n\n" +
	"| file | finding |\n|:-----|--------:|\n| cache.go | print |\n"

// renderedParts are the inner HTML of each element of page marked
// data-rendered-preview.
func renderedParts(t *testing.T, page string) []string {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(page))
	require.NoError(t, err)
	var parts []string
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			for _, a := range n.Attr {
				if a.Key == "data-rendered-preview" {
					var b bytes.Buffer
					for c := n.FirstChild; c != nil; c = c.NextSibling {
						require.NoError(t, html.Render(&b, c))
					}
					parts = append(parts, b.String())
					return
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return parts
}

// requireNothingRuns fails on any part of rendered that could run script,
// load a resource or pose as the page's own elements.
func requireNothingRuns(t *testing.T, rendered string) {
	t.Helper()
	lower := strings.ToLower(rendered)
	for _, bad := range []string{"<script", "pwned-script", "onerror", "onclick", "javascript:", "<iframe", "<img", "src=", "style=", `id="reason"`} {
		require.NotContains(t, lower, bad, "rendered preview: %s", rendered)
	}
}

func TestRunPageRendersAPRAuthorsMarkdownWithoutItsScriptBesideTheEscapedRawText(t *testing.T) {
	h := newHarness(t, testConfig(), nil)
	snap := waitingRun()
	snap.PendingAction.Preview = hostilePreview
	h.runs.put("run-1", snap)

	page, _ := h.browser(map[string]string{"X-Forwarded-User": "alice"}).openRun("run-1")

	parts := renderedParts(t, page)
	require.Len(t, parts, 1)
	rendered := parts[0]
	requireNothingRuns(t, rendered)
	require.Contains(t, rendered, "<strong>bold</strong>")
	require.Contains(t, rendered, "<em>soft</em>")
	require.Contains(t, rendered, "<details><summary>Inline findings</summary>")
	require.Contains(t, rendered, "<code>cache.go</code>")
	require.Contains(t, rendered, `<a href="https://example.com/docs" rel="nofollow noreferrer noopener" target="_blank">docs</a>`)
	require.Contains(t, rendered, "click me", "a javascript: link keeps its text, not its target")
	require.Contains(t, rendered, `>image: tracker</a>`, "an image is a link that says so, never loaded")
	require.Contains(t, rendered, `<th align="left">file</th>`)
	// The raw text is beside it, escaped, and it is what is approved.
	require.Contains(t, page, "Exactly what is approved")
	require.Contains(t, page, "&lt;script&gt;document.title=&#39;pwned-script&#39;&lt;/script&gt;")
	require.Contains(t, page, "[click me](javascript:alert(1))")
	require.Contains(t, page, "**bold** and _soft_")
	require.Equal(t, strings.Count(page, "<script"), strings.Count(page, `<script src="/static/`), "the page's own scripts only")
}

func TestPanelRendersThePreviewAsTheRunPageDoes(t *testing.T) {
	h := newHarness(t, testConfig(), nil)
	snap := waitingRun()
	snap.PendingAction.Preview = hostilePreview
	h.runs.put("run-1", snap)

	resp := h.get("/runs/run-1/panel", nil)

	require.Equal(t, http.StatusOK, resp.StatusCode)
	parts := renderedParts(t, readAll(t, resp))
	require.Len(t, parts, 1)
	requireNothingRuns(t, parts[0])
	require.Contains(t, parts[0], "<strong>bold</strong>")
}

func TestRunPageShowsAPlainTextActionRawOnly(t *testing.T) {
	h := newHarness(t, testConfig(), nil)
	snap := waitingRun()
	snap.PendingAction.ToolName = "create_ticket"
	snap.PendingAction.Preview = "**not markdown** <b>here</b>"
	h.runs.put("run-1", snap)

	page, _ := h.browser(map[string]string{"X-Forwarded-User": "alice"}).openRun("run-1")

	require.Empty(t, renderedParts(t, page))
	require.Contains(t, page, "**not markdown** &lt;b&gt;here&lt;/b&gt;")
	require.NotContains(t, page, "<strong>not markdown</strong>")
}

func TestRunPageRendersOnlyTheBodyOfAReviewAndAnIssue(t *testing.T) {
	h := newHarness(t, testConfig(), nil)
	snap := twoWaitingRun(false)
	snap.Actions[0].ToolName = api.ToolCreatePullRequestReview
	snap.Actions[0].Preview = "Review (COMMENT) on acme/widgets#1, with 1 inline comment:\n**Body** of the review\n\nInline comments:\n- \"cache.go\":3 (RIGHT, by default): \"<script>x</script>\""
	snap.Actions[1].ToolName = api.ToolCreateIssue
	snap.Actions[1].Preview = "New issue in acme/widgets\nTitle: \"TODO\"\nLabels: none\n\n# Leftover *print*"
	h.runs.put("run-1", snap)

	page, _ := h.browser(map[string]string{"X-Forwarded-User": "alice"}).openRun("run-1")

	parts := renderedParts(t, page)
	require.Len(t, parts, 2)
	require.Equal(t, "<p><strong>Body</strong> of the review</p>\n", parts[0])
	require.Equal(t, "<h1>Leftover <em>print</em></h1>\n", parts[1])
}

func TestRunPageLabelsTheInputDigest(t *testing.T) {
	h := waitingHarness(t, nil)

	page, _ := h.browser(map[string]string{"X-Forwarded-User": "alice"}).openRun("run-1")

	require.Contains(t, page, "<dt>Input digest (sha256)</dt><dd><code class=\"args-hash\"")
	require.Contains(t, page, act1Hash+"</code>")
}

func TestInboxTitleSaysWhatTheActionDoesAndRendersItsPreview(t *testing.T) {
	h := newHarness(t, testConfig(), nil)
	snap := waitingRun()
	snap.PendingAction.Words = &api.ToolWords{Noun: "comment", Verb: "post", Past: "posted"}
	snap.PendingAction.Preview = hostilePreview
	h.runs.put("run-1", snap)

	resp := h.get("/", nil)

	require.Equal(t, http.StatusOK, resp.StatusCode)
	page := readAll(t, resp)
	require.Contains(t, page, `<a href="/runs/run-1">Post a comment on acme/widgets#1</a>`)
	require.NotContains(t, page, "acme/widgets#1: create_issue_comment")
	parts := renderedParts(t, page)
	require.Len(t, parts, 1)
	requireNothingRuns(t, parts[0])
	require.Contains(t, parts[0], "<strong>bold</strong>")
	require.Contains(t, page, "&lt;script&gt;document.title=")
}
