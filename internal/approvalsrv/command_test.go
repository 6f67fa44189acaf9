package approvalsrv

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

func TestParseCommentCommandForms(t *testing.T) {
	cases := map[string]struct {
		body string
		want commentCommand
	}{
		"approve":                {"/agentrun approve act-1", commentCommand{Decision: "approve", ActionID: "act-1"}},
		"reject with reason":     {"/agentrun reject act-1 the tone is off", commentCommand{Decision: "reject", ActionID: "act-1", Reason: "the tone is off"}},
		"after prose":            {"Thanks!\n\n/agentrun approve act-1\nmore text", commentCommand{Decision: "approve", ActionID: "act-1"}},
		"windows line endings":   {"hi\r\n/agentrun approve act-1\r\n", commentCommand{Decision: "approve", ActionID: "act-1"}},
		"upper-case verb":        {"/agentrun APPROVE act-1", commentCommand{Decision: "approve", ActionID: "act-1"}},
		"extra spaces and tabs":  {"  /agentrun\treject   act-1   too   long  ", commentCommand{Decision: "reject", ActionID: "act-1", Reason: "too   long"}},
		"first of two commands":  {"/agentrun approve act-1\n/agentrun reject act-1 no", commentCommand{Decision: "approve", ActionID: "act-1"}},
		"after a closed fence":   {"```\n/agentrun approve act-0\n```\n/agentrun approve act-1", commentCommand{Decision: "approve", ActionID: "act-1"}},
		"after a closed comment": {"<!-- /agentrun approve act-0 -->\n/agentrun approve act-1", commentCommand{Decision: "approve", ActionID: "act-1"}},
		"after a quote and a blank line": {"> /agentrun approve act-0\n> quoted\n\n/agentrun approve act-1",
			commentCommand{Decision: "approve", ActionID: "act-1"}},
		"trailing comment dropped": {"/agentrun reject act-1 too harsh <!-- note to self -->",
			commentCommand{Decision: "reject", ActionID: "act-1", Reason: "too harsh"}},
		"three spaces of indent":                 {"   /agentrun approve act-1", commentCommand{Decision: "approve", ActionID: "act-1"}},
		"current action ID":                      {"/agentrun approve act-be23a84bb17f4733", commentCommand{Decision: "approve", ActionID: "act-be23a84bb17f4733"}},
		"historical action ID":                   {"/agentrun approve act-step-4", commentCommand{Decision: "approve", ActionID: "act-step-4"}},
		"fence of another kind":                  {"~~~\n```\n/agentrun approve act-0\n~~~\n/agentrun approve act-1", commentCommand{Decision: "approve", ActionID: "act-1"}},
		"inline code is no fence":                {"```x```\n/agentrun approve act-1", commentCommand{Decision: "approve", ActionID: "act-1"}},
		"an indented fence is code, not a fence": {"    ```\n/agentrun approve act-1", commentCommand{Decision: "approve", ActionID: "act-1"}},
		"two backticks are no fence":             {"``\n/agentrun approve act-1", commentCommand{Decision: "approve", ActionID: "act-1"}},
		"a fence ends a quote":                   {"> q\n```\n```\n/agentrun approve act-1", commentCommand{Decision: "approve", ActionID: "act-1"}},
		"after a closing fence with spaces": {"```\n/agentrun approve act-0\n```  \n/agentrun approve act-1",
			commentCommand{Decision: "approve", ActionID: "act-1"}},
		"after a comment closed mid-line": {"<!--\nhidden --> shown\n/agentrun approve act-1", commentCommand{Decision: "approve", ActionID: "act-1"}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := parseCommentCommand(c.body)

			require.NoError(t, err)
			require.Equal(t, c.want, got)
		})
	}
}

func TestParseCommentCommandWithoutCommand(t *testing.T) {
	for _, body := range []string{
		"", "LGTM", "/agentrunner approve act-1", "> /agentrun approve act-1", "see `/agentrun approve act-1`", "~~~\n/agentrun approve act-1\n~~~",
		"please /agentrun approve act-1",
		"- /agentrun approve act-1",
		"<!-- /agentrun approve act-1 -->",
		"<!--\n/agentrun approve act-1\n-->",
		"text <!-- hidden\n/agentrun approve act-1\n-->",
		"<!-- note --> /agentrun approve act-1",
		"<!-- note -->/agentrun approve act-1",
		"    /agentrun approve act-1",
		"\t/agentrun approve act-1",
		"Example:\n\n    /agentrun approve act-1",
		"> quoted\n/agentrun approve act-1",
		"  > quoted\nstill quoted\n/agentrun approve act-1",
		"````\n```\n/agentrun approve act-1\n````",
		"```go\n/agentrun approve act-1",
		"/agent<!-- -->run approve act-1",
		"  \t/agentrun approve act-1",
		"```\n    ```\n/agentrun approve act-1\n```",
		"```\n``` x\n/agentrun approve act-1\n```",
		"<!--\nx --> <!--\n/agentrun approve act-1\n-->",
		"<!--\nx -->\n<!-- y\n/agentrun approve act-1",
	} {
		_, err := parseCommentCommand(body)

		require.ErrorIs(t, err, errNoCommand, body)
	}
}

func TestParseCommentCommandMalformed(t *testing.T) {
	for _, body := range []string{
		"/agentrun", "/agentrun approve", "/agentrun approve act-1 please", "/agentrun reject act-1", "/agentrun merge act-1",
		"/agentrun approve 12345", "/agentrun approve act-1'OR'x", "/agentrun approve act-" + strings.Repeat("f", 61),
		"/agentrun approve<!-- -->act-1",
	} {
		_, err := parseCommentCommand(body)

		var bad *invalidRequest
		require.True(t, errors.As(err, &bad), "%q: %v", body, err)
	}
}

// FuzzParseCommentCommand: any comment either holds no command, a malformed
// one, or a command whose fields are clean.
func FuzzParseCommentCommand(f *testing.F) {
	f.Add("/agentrun approve act-1")
	f.Add("/agentrun reject act-1 tone")
	f.Add("/agentrun respond act-1 shorter please")
	f.Fuzz(func(t *testing.T, body string) {
		cmd, err := parseCommentCommand(body)
		var bad *invalidRequest
		switch {
		case errors.Is(err, errNoCommand), errors.As(err, &bad):
			require.Equal(t, commentCommand{}, cmd)
			return
		case err != nil:
			t.Fatalf("unexpected error type %T: %v", err, err)
		}
		require.Contains(t, []string{"approve", "reject", "respond"}, cmd.Decision)
		require.NotEmpty(t, cmd.ActionID)
		require.False(t, strings.ContainsAny(cmd.ActionID, " \t\r\n"))
		require.NoError(t, checkActionID(cmd.ActionID))
		require.True(t, utf8.ValidString(cmd.ActionID+cmd.Reason))
		require.Equal(t, cmd.Decision != "approve", cmd.Reason != "")
		require.Equal(t, strings.TrimSpace(cmd.Reason), cmd.Reason)
		require.Contains(t, body, cmd.ActionID)
	})
}
