package e2e

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/ghsandbox"
	"github.com/agentrun/agentrun/internal/testkit"
)

var (
	// readmeShellSpan is a command README step 8 gives in a code span.
	readmeShellSpan = regexp.MustCompile("`((?:bin/starter|curl) [^`]*)`")
	// pushPlaceholder is an ID README step 8 leaves for the shell to print.
	pushPlaceholder = regexp.MustCompile(`\b(RUN[45]|ACT[56])\b`)
	// startedRun is the run an approval server's answer names.
	startedRun = regexp.MustCompile(`\brun (run-[0-9a-f]+)`)
)

// readmePushStep is README step 8, "Push a new commit": its commands in order.
func readmePushStep(t *testing.T) []string {
	t.Helper()
	root, err := testkit.RepoRoot()
	require.NoError(t, err)
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	require.NoError(t, err)
	_, step, ok := strings.Cut(string(readme), "**8. Push a new commit**")
	require.True(t, ok, "README step 8 is \"Push a new commit\"")
	step, _, ok = strings.Cut(step, "**9. ")
	require.True(t, ok, "README step 8 ends where step 9 begins")
	var commands []string
	for _, m := range readmeShellSpan.FindAllStringSubmatch(step, -1) {
		commands = append(commands, m[1])
	}
	return commands
}

// pushShell runs README commands against make up's stack: bin/starter is
// this test's, the sandbox at this test's address, each placeholder the ID
// printed for it.
type pushShell struct {
	t   *testing.T
	m   *makeUp
	ids map[string]string
}

func (sh *pushShell) run(command string) string {
	sh.t.Helper()
	line := pushPlaceholder.ReplaceAllStringFunc(command, func(name string) string {
		id, ok := sh.ids[name]
		require.True(sh.t, ok, "%s: nothing has printed %s yet", command, name)
		return id
	})
	line = strings.ReplaceAll(line, "bin/starter ", filepath.Join(sh.m.env["AGENTRUN_BIN"], "starter")+" ")
	line = strings.ReplaceAll(line, "http://127.0.0.1:9090", "http://"+sh.m.env["SANDBOX_ADDR"])
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", line)
	env := map[string]string{"TEMPORAL_ADDRESS": "127.0.0.1:" + sh.m.env["TEMPORAL_PORT"]}
	cmd.Env = processEnv(env)
	out, err := cmd.CombinedOutput()
	require.NoError(sh.t, err, "%s\n%s", line, out)
	sh.t.Logf("$ %s\n%s", line, out)
	return string(out)
}

// push runs a README curl and names the run its answer names.
func (sh *pushShell) push(command, runName string) ghsandbox.PullEventAnswer {
	sh.t.Helper()
	var a ghsandbox.PullEventAnswer
	require.NoError(sh.t, json.Unmarshal([]byte(sh.run(command)), &a))
	require.Equal(sh.t, http.StatusAccepted, a.Delivered, "the approval server took the delivery: %+v", a)
	m := startedRun.FindStringSubmatch(a.Response)
	require.NotNil(sh.t, m, "the answer names the review's run: %s", a.Response)
	sh.ids[runName] = m[1]
	return a
}

func (sh *pushShell) snapshot(runName string) api.RunSnapshot {
	sh.t.Helper()
	var snap api.RunSnapshot
	require.NoError(sh.t, json.Unmarshal([]byte(sh.run("bin/starter status "+runName+" --json")), &snap))
	return snap
}

// checkRunOn is the one agentrun/pr-review check run on head.
func (m *makeUp) checkRunOn(t *testing.T, head string) ghsandbox.CheckRunJSON {
	t.Helper()
	var list ghsandbox.CheckRunList
	resp, err := http.Get("http://" + m.env["SANDBOX_ADDR"] + "/repos/acme/widgets/commits/" + head + "/check-runs?check_name=agentrun/pr-review")
	require.NoError(t, err)
	defer resp.Body.Close()
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&list))
	require.Len(t, list.CheckRuns, 1, "one check run on %s", head)
	return list.CheckRuns[0]
}

// press presses a button of the check run on the pull request's page, as
// the person picked in its "Press as", and returns the page it leads back to.
func (m *makeUp) press(t *testing.T, checkID int64, identifier, sender string) string {
	t.Helper()
	resp, err := http.PostForm("http://"+m.env["SANDBOX_ADDR"]+"/_sandbox/check-runs/acme/widgets/"+strconv.FormatInt(checkID, 10)+"/requested-action",
		url.Values{"identifier": {identifier}, "sender": {sender}, "back": {"/acme/widgets/pull/1"}})
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	page, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return string(page)
}

// button is the identifier of the button the pull request's page shows
// first whose identifier begins with prefix.
func (m *makeUp) button(t *testing.T, prefix string) string {
	t.Helper()
	resp, err := http.Get("http://" + m.env["SANDBOX_ADDR"] + "/acme/widgets/pull/1")
	require.NoError(t, err)
	defer resp.Body.Close()
	page, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	found := regexp.MustCompile(`data-identifier="(` + regexp.QuoteMeta(prefix) + `[^"]*)"`).FindSubmatch(page)
	require.NotNil(t, found, "the page shows a %s… button:\n%s", prefix, page)
	return string(found[1])
}

// TestMakeUpsPullRequestStartsTheDemoAndTheReadmesPushStepRunsAsWritten:
// make up's demo run is started by the sandbox's opened delivery; the pull
// request's page decides it with its check run's buttons (a reader's press
// refused, a writer's posting once); then README step 8 runs as written: a
// push is reviewed for its commit alone, a second push while that review
// waits supersedes it with nothing posted, and the new review covers only
// the pushed commits.
func TestMakeUpsPullRequestStartsTheDemoAndTheReadmesPushStepRunsAsWritten(t *testing.T) {
	commands := readmePushStep(t)
	m := newMakeUp(t)
	out, code := m.run("up")
	require.Equal(t, 0, code, out)
	require.Contains(t, out, "the approval server started the review: run-")
	require.NotContains(t, out, "bin/starter start --repo", "the starter did not start the demo")
	require.Contains(t, out, "is waiting for approval of action")
	sh := &pushShell{t: t, m: m, ids: map[string]string{}}
	demo := startedRun.FindStringSubmatch(out)
	require.NotNil(t, demo)
	sh.ids["DEMO"] = demo[1]

	// Step 5 on the pull request's page: mallory's press is refused, bob's posts.
	waiting := sh.snapshot(demo[1])
	require.Equal(t, api.RunWaitingForUser, waiting.Run.Status)
	check := m.checkRunOn(t, waiting.Run.Head)
	require.Equal(t, demo[1], *check.ExternalID)
	page := m.press(t, check.ID, m.button(t, "approve-"), "mallory")
	require.Contains(t, page, "mallory pressed <b>Approve</b>; the webhook answered 403: mallory has read permission")
	require.Equal(t, api.ActionWaiting, sh.snapshot(demo[1]).PendingAction.State, "a reader's press decides nothing")
	m.press(t, check.ID, m.button(t, "approve-"), "bob")
	require.Eventually(t, func() bool { return sh.snapshot(demo[1]).Run.Status == api.RunCompleted }, time.Minute, 200*time.Millisecond)
	require.Len(t, sh.snapshot(demo[1]).Outcome.Posted, 1, "bob's press posted the review once")

	// Step 8 as the README gives it.
	var curls, starters []string
	for _, c := range commands {
		if strings.HasPrefix(c, "curl ") {
			curls = append(curls, c)
		} else {
			starters = append(starters, c)
		}
	}
	require.Len(t, curls, 2, "README step 8 pushes twice: %q", commands)
	require.Equal(t, []string{"bin/starter events RUN4 --follow", "bin/starter status RUN4", "bin/starter events RUN5 --follow"}, starters)

	first := sh.push(curls[0], "RUN4")
	out4 := sh.run(starters[0])
	m4 := followWaits.FindStringSubmatch(out4)
	require.NotNil(t, m4, out4)
	sh.ids["ACT5"] = m4[2]
	body4 := commentBody(t, *sh.snapshot("RUN4").PendingAction)
	require.Contains(t, body4, "Reviewed only the change since "+waiting.Run.Head[:7])
	require.Contains(t, body4, "cache/evict.go")
	require.NotContains(t, body4, "debug print", "the push's review does not review step 5's files again")

	second := sh.push(curls[1], "RUN5")
	require.Equal(t, first.Head, second.Before)
	require.Eventually(t, func() bool { return sh.snapshot("RUN4").Run.Status == api.RunCompleted }, time.Minute, 200*time.Millisecond)
	old := sh.snapshot("RUN4")
	require.Equal(t, api.ActionExpired, old.PendingAction.State)
	require.Equal(t, "superseded by "+second.Head, old.PendingAction.Reason)
	require.Empty(t, old.Outcome.Posted, "nothing stale is posted")
	require.Eventually(t, func() bool { return m.checkRunOn(t, first.Head).Conclusion != nil }, time.Minute, 200*time.Millisecond)
	require.Equal(t, "neutral", *m.checkRunOn(t, first.Head).Conclusion)

	out5 := sh.run(starters[2])
	require.NotNil(t, followWaits.FindStringSubmatch(out5), out5)
	body5 := commentBody(t, *sh.snapshot("RUN5").PendingAction)
	require.Contains(t, body5, "Reviewed only the change since "+first.Head[:7]+", whose review (run "+sh.ids["RUN4"]+") still waited for approval when this push came: 1 commit",
		"the review of the new head covers only the new commit and says where the superseded draft is")
	require.Contains(t, body5, "cache/log.go")
	require.NotContains(t, body5, "cache/evict.go", "RUN4's draft is not reviewed again")
	require.NotContains(t, body5, "debug print")
}
