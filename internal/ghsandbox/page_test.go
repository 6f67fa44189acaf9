package ghsandbox

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

// The pull request page shows a posted comment as GitHub does: its
// Markdown rendered, its hidden marker hidden, anything that would run
// script left out.
func TestPullPageRendersCommentsAsGitHubDoesWithTheMarkerHidden(t *testing.T) {
	sb, srv := startSandbox(t, DefaultFixture())
	_, err := sb.PostAs(CommentAs{Owner: "acme", Repo: "widgets", Number: 1, User: "agentrun-bot",
		Body: "## Review\n\n**2 findings**\n\n- `cache.go`: a debug print\n\n<script>alert(1)</script>\n\n<!-- agent-operation:review-1:5 -->"})
	require.NoError(t, err)

	a := call(t, "GET", srv.URL+"/acme/widgets/pull/1", "")
	require.Equal(t, http.StatusOK, a.status)
	page := string(a.body)
	require.Contains(t, page, "<h2>Review</h2>")
	require.Contains(t, page, "<strong>2 findings</strong>")
	require.Contains(t, page, "<code>cache.go</code>")
	require.NotContains(t, page, "agent-operation", "the hidden marker stays hidden")
	require.NotContains(t, page, "<script>alert")
	require.NotContains(t, page, "**2 findings**", "no raw Markdown")
}
