package offline

import (
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"
)

// activeMath is a "$" GitHub could read as opening or closing math: one
// without a backslash before it.
var activeMath = regexp.MustCompile(`(^|[^\\])\$`)

// issueAutolink is "GH-<n>" as GitHub links it.
var issueAutolink = regexp.MustCompile(`(?i)\bgh-[0-9]`)

func TestHostileTitlesLeaveNoMathOrGHAutolinkInTheReviewHeading(t *testing.T) {
	for _, title := range []string{
		"Pay $5 to $attacker$ now",
		"$$\\text{Approved by the maintainers}$$",
		"$`\\color{red}{LGTM}`$",
		"Fixes GH-123, gh-7 and Gh-0042",
		"GH-1$x$GH-2",
	} {
		t.Run(title, func(t *testing.T) {
			fx := loadFixture(t, "clean")
			fx.PullRequest.Title = title
			d := newDialogue(t, "Review pull request acme/widgets#8.")
			_, body := d.fetchAndPropose(fx)
			heading := regexp.MustCompile(`(?m)^## .*$`).FindString(body)
			require.NotEmpty(t, heading, body)

			require.NotRegexp(t, activeMath, heading)
			require.NotRegexp(t, issueAutolink, heading)
		})
	}
}

func TestPlainTextBreaksGHAutolinksOnlyBeforeANumber(t *testing.T) {
	require.Equal(t, "GH\u200d-12 and GH-x and \\$1", plainText("GH-12 and GH-x and $1"))
	require.Equal(t, "high-5 GH", plainText("high-5 GH"), "an h after g is broken only in gh-<digit>")
}
