package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/testkit"
)

var (
	// readmeCommandSpan is a command the README gives in a code span.
	readmeCommandSpan = regexp.MustCompile("`((?:bin/starter|echo) [^`]*)`")
	// readmePlaceholder is an ID the README leaves for the starter to print.
	readmePlaceholder = regexp.MustCompile(`\b(RUN[23]?|ACT[234]?)\b`)
	// followWaits is how the starter's --follow ends on a waiting action.
	followWaits = regexp.MustCompile(`(?m)^run (\S+) is waiting for approval of action (\S+)$`)
)

// readmeTalk is README step 6, "Talk to a run": its commands in order, by
// what each begins with.
type readmeTalk struct {
	commands []string
}

func readReadmeTalk(t *testing.T) readmeTalk {
	t.Helper()
	root, err := testkit.RepoRoot()
	require.NoError(t, err)
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	require.NoError(t, err)
	_, step, ok := strings.Cut(string(readme), "**6. Talk to a run**")
	require.True(t, ok, "README step 6 is \"Talk to a run\"")
	step, _, ok = strings.Cut(step, "**7. ")
	require.True(t, ok, "README step 6 ends where step 7 begins")
	var talk readmeTalk
	for _, m := range readmeCommandSpan.FindAllStringSubmatch(step, -1) {
		talk.commands = append(talk.commands, m[1])
	}
	return talk
}

// command is the one command of the step that begins with prefix.
func (r readmeTalk) command(t *testing.T, prefix string) string {
	t.Helper()
	var found []string
	for _, c := range r.commands {
		if strings.HasPrefix(c, prefix) {
			found = append(found, c)
		}
	}
	require.Len(t, found, 1, "README step 6 gives one command beginning %q: %q", prefix, r.commands)
	return found[0]
}

// talkShell runs README commands as a newcomer's shell would, in one
// working folder, with bin/starter this test's starter at this test's stack
// and each placeholder the ID the starter printed for it.
type talkShell struct {
	t   *testing.T
	s   *Stack
	dir string
	ids map[string]string
}

func (sh *talkShell) run(ctx context.Context, command string) string {
	sh.t.Helper()
	line := readmePlaceholder.ReplaceAllStringFunc(command, func(name string) string {
		id, ok := sh.ids[name]
		require.True(sh.t, ok, "%s: the starter has printed no %s yet", command, name)
		return id
	})
	line = strings.ReplaceAll(line, "bin/starter ", sh.s.Bins.Starter+" ")
	cmd := exec.CommandContext(ctx, "bash", "-c", line)
	cmd.Dir = sh.dir
	cmd.Env = processEnv(sh.s.StarterEnv())
	out, err := cmd.Output()
	var stderr string
	if exitErr := (*exec.ExitError)(nil); errors.As(err, &exitErr) {
		stderr = string(exitErr.Stderr)
	}
	require.NoError(sh.t, err, "%s\nstdout: %s\nstderr: %s", command, out, stderr)
	sh.t.Logf("$ %s\n%s", line, out)
	return string(out)
}

// waits reads which run waits for which action from a --follow's output.
func (sh *talkShell) waits(out, runName, actionName string) {
	sh.t.Helper()
	m := followWaits.FindStringSubmatch(out)
	require.NotNil(sh.t, m, "--follow ends saying which action waits:\n%s", out)
	if runName != "" {
		sh.ids[runName] = m[1]
	}
	require.Equal(sh.t, sh.ids[runName], m[1], "the action waits in %s", runName)
	sh.ids[actionName] = m[2]
}

// commentBody is a comment action's body as the run shows it.
func commentBody(t *testing.T, pa api.PendingAction) string {
	t.Helper()
	var args struct {
		Body string `json:"body"`
	}
	require.NoError(t, json.Unmarshal(pa.Args, &args), "the action's args: %s", pa.Args)
	require.NotEmpty(t, args.Body)
	return args.Body
}

// TestTheReadmesTalkToARunWalkthroughRunsAsWritten runs README step 6 on
// the real worker, starter and sandbox after make up's demo run has posted
// on #1: the second review's feedback "shorter" gets a second, shorter
// proposal; the edited approval posts one comment, the edit file's text,
// and neither proposal; the follow-up, approved as written, posts one new
// comment and not the earlier one again; and `starter conversation` lists
// both runs in order.
func TestTheReadmesTalkToARunWalkthroughRunsAsWritten(t *testing.T) {
	talk := readReadmeTalk(t)
	start := talk.command(t, "bin/starter start --repo acme/widgets --pr 1 ")
	respond := talk.command(t, "bin/starter respond RUN2 ")
	require.Contains(t, respond, "--feedback shorter")
	follow := talk.command(t, "bin/starter events RUN2 --follow")
	edit := talk.command(t, "echo ")
	approveEdited := talk.command(t, "bin/starter approve RUN2 ")
	require.Contains(t, approveEdited, "--edit-file")
	followUp := talk.command(t, "bin/starter start --follow-up RUN2 ")
	approveFollowUp := talk.command(t, "bin/starter approve RUN3 ")
	conversation := talk.command(t, "bin/starter conversation RUN2")
	talk.command(t, "bin/starter cancel ")

	s := newStack(t)
	s.StartWorker(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	sh := &talkShell{t: t, s: s, dir: t.TempDir(), ids: map[string]string{}}

	// make up's demo run (internal/scripts/stack.sh), approved as in step 5.
	demo := sh.run(ctx, "bin/starter start --repo acme/widgets --pr 1 --user newcomer --follow")
	sh.waits(demo, "RUN", "ACT")
	sh.run(ctx, "bin/starter approve RUN --action ACT --as bob")
	require.Equal(t, api.RunCompleted, WaitForResult(t, s.Client(), sh.ids["RUN"], runTimeout).Status)
	demoComments := s.Sandbox.comments(t, PullNum)
	require.Len(t, demoComments, 1, "the demo run posted its comment on #1")

	out := sh.run(ctx, start)
	sh.ids["RUN2"] = strings.SplitN(out, "\n", 2)[0]
	require.NotEqual(t, sh.ids["RUN"], sh.ids["RUN2"], "the new key starts a second review, not the demo's again")
	sh.waits(out, "RUN2", "ACT2")
	first, err := Snapshot(ctx, s.Client(), sh.ids["RUN2"])
	require.NoError(t, err)
	require.NotNil(t, first.PendingAction, Describe(first))
	require.Equal(t, sh.ids["ACT2"], first.PendingAction.ID)
	firstBody := commentBody(t, *first.PendingAction)
	require.Contains(t, firstBody, "\n- ", "the first proposal lists its findings")

	sh.run(ctx, respond)
	sh.waits(sh.run(ctx, follow), "RUN2", "ACT3")
	require.NotEqual(t, sh.ids["ACT2"], sh.ids["ACT3"], "the model proposed again")
	revised, err := Snapshot(ctx, s.Client(), sh.ids["RUN2"])
	require.NoError(t, err)
	require.NotNil(t, revised.PendingAction, Describe(revised))
	require.Equal(t, sh.ids["ACT3"], revised.PendingAction.ID)
	revisedBody := commentBody(t, *revised.PendingAction)
	// Step 6 points to `status RUN2 --json` for the arguments an edit replaces.
	var shown api.RunSnapshot
	require.NoError(t, json.Unmarshal([]byte(sh.run(ctx, "bin/starter status RUN2 --json")), &shown))
	require.NotNil(t, shown.PendingAction)
	require.Equal(t, revisedBody, commentBody(t, *shown.PendingAction), "status --json shows the action's args")
	require.Less(t, len(revisedBody), len(firstBody), "the feedback asked for a shorter comment")
	require.Contains(t, revisedBody, "(details left out, as the reviewer asked)")
	require.NotContains(t, revisedBody, "\n- ")
	for _, pa := range revised.Actions {
		if pa.ID == sh.ids["ACT2"] {
			require.Equal(t, api.ActionRejected, pa.State, "the answered action ended rejected")
			require.Equal(t, "shorter", pa.Reason, "with the feedback as its reason")
		}
	}

	sh.run(ctx, edit)
	var edited struct {
		Body string `json:"body"`
	}
	raw, err := os.ReadFile(filepath.Join(sh.dir, "edit.json"))
	require.NoError(t, err, "the README's echo wrote edit.json")
	require.NoError(t, json.Unmarshal(raw, &edited), "edit.json is the action's argument object: %s", raw)
	require.NotEmpty(t, edited.Body)
	sh.run(ctx, approveEdited)
	done := WaitForResult(t, s.Client(), sh.ids["RUN2"], runTimeout)
	require.Equal(t, api.RunCompleted, done.Status, done.Error)
	posted := s.Sandbox.comments(t, PullNum)
	require.Len(t, posted, 2, "the edited approval posted one comment beside the demo's")
	require.Equal(t, demoComments[0].GetBody(), posted[0].GetBody())
	talkComment := posted[1].GetBody()
	marker, ok := strings.CutPrefix(talkComment, edited.Body)
	require.True(t, ok, "the comment is the edited text:\n%s", talkComment)
	require.Regexp(t, `^\s*<!-- agent-operation:`+regexp.QuoteMeta(sh.ids["RUN2"])+`:\d+ -->\s*$`, marker,
		"and nothing else but its marker: neither proposal was posted")

	out = sh.run(ctx, followUp)
	sh.ids["RUN3"] = strings.SplitN(out, "\n", 2)[0]
	require.NotEqual(t, sh.ids["RUN2"], sh.ids["RUN3"])
	sh.waits(out, "RUN3", "ACT4")
	sh.run(ctx, approveFollowUp)
	done = WaitForResult(t, s.Client(), sh.ids["RUN3"], runTimeout)
	require.Equal(t, api.RunCompleted, done.Status, done.Error)
	snap, err := Snapshot(ctx, s.Client(), sh.ids["RUN3"])
	require.NoError(t, err)
	require.Equal(t, sh.ids["RUN2"], snap.Run.FollowUp)
	require.Equal(t, sh.ids["RUN2"], snap.Run.ConversationID, "the follow-up is in RUN2's conversation")
	posted = s.Sandbox.comments(t, PullNum)
	require.Len(t, posted, 3, "the follow-up posted one new comment and nothing again")
	require.Equal(t, talkComment, posted[1].GetBody(), "RUN2's comment stands as it was")
	require.Contains(t, posted[2].GetBody(), "<!-- agent-operation:"+sh.ids["RUN3"]+":", "the new comment is the follow-up's own")
	require.Len(t, s.Sandbox.runComments(t, PullNum, sh.ids["RUN2"]), 1, "RUN2's comment was not posted again")

	// Visibility lists a run a moment after it starts.
	Eventually(t, runTimeout, "the conversation lists both runs", func() (string, bool, string) {
		out := sh.run(ctx, conversation)
		i, j := strings.Index(out, sh.ids["RUN2"]), strings.Index(out, sh.ids["RUN3"])
		return out, i >= 0 && j > i && !strings.Contains(out, sh.ids["RUN"]), out
	})
}
