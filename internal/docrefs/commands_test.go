package docrefs

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// starterFlags asks the built starter for each subcommand's flags, as
// `starter SUB -h` prints them; nil for a subcommand it does not know.
func starterFlags(t *testing.T, bin, sub string) map[string]bool {
	t.Helper()
	cmd := exec.Command(bin, sub, "-h")
	cmd.Env = []string{"PATH=/usr/bin:/bin"}
	out, _ := cmd.CombinedOutput() // -h exits 0 or 2 by command; the text tells
	if strings.Contains(string(out), "unknown command") {
		return nil
	}
	require.Contains(t, string(out), "usage: starter "+sub, "starter %s -h prints its usage", sub)
	flags := map[string]bool{"h": true, "help": true}
	for _, m := range usageFlag.FindAllStringSubmatch(string(out), -1) {
		flags[m[1]] = true
	}
	return flags
}

var usageFlag = regexp.MustCompile(`(?m)^\s+-([A-Za-z][A-Za-z0-9-]*)`)

// TestEveryDocumentedCommandRunsAsWritten reads every `starter SUB --flag`
// and `make TARGET` line of README.md and docs/*.md and checks it against
// the starter that builds from this tree (its own flag sets, through
// `starter SUB -h`) and the Makefile's targets: a renamed subcommand, a
// dropped flag or a removed target fails here.
func TestEveryDocumentedCommandRunsAsWritten(t *testing.T) {
	root := repoRoot(t)
	bin := filepath.Join(t.TempDir(), "starter")
	build := exec.Command("go", "build", "-o", bin, "./starter")
	build.Dir = root
	out, err := build.CombinedOutput()
	require.NoError(t, err, "%s", out)
	targets, err := MakeTargets(root)
	require.NoError(t, err)
	c, err := NewChecker(root)
	require.NoError(t, err)

	cmds, err := c.Commands()
	require.NoError(t, err)

	subs := map[string]map[string]bool{}
	var stale []string
	var starters, makes int
	for _, cmd := range cmds {
		at := cmd.File + ":" + strconv.Itoa(cmd.Line) + ": " + cmd.Text
		switch cmd.Program {
		case "make":
			makes++
			for _, target := range cmd.Targets {
				if !targets[target] {
					stale = append(stale, at+" (the Makefile has no target "+target+")")
				}
			}
		case "starter":
			starters++
			flags, seen := subs[cmd.Sub]
			if !seen {
				flags = starterFlags(t, bin, cmd.Sub)
				subs[cmd.Sub] = flags
			}
			if flags == nil {
				stale = append(stale, at+" (the starter has no subcommand "+cmd.Sub+")")
				continue
			}
			for _, f := range cmd.Flags {
				if !flags[f] {
					stale = append(stale, at+" (starter "+cmd.Sub+" has no flag --"+f+")")
				}
			}
		}
	}
	t.Logf("%d starter lines (%d subcommands), %d make lines", starters, len(subs), makes)
	require.Greater(t, starters, 10, "the docs' starter lines were found")
	require.Greater(t, makes, 3, "the docs' make lines were found")
	require.Empty(t, stale, "commands in the docs that no longer run as written:\n%s", strings.Join(stale, "\n"))
}

func TestCommandsInReadsStarterFlagsAndMakeTargets(t *testing.T) {
	got := CommandsIn("README.md", 3, `bin/starter approve RUN --action=ACT --as bob | jq . && make up MODEL=x test`)
	require.Len(t, got, 2)
	require.Equal(t, "approve", got[0].Sub)
	require.Equal(t, []string{"action", "as"}, got[0].Flags)
	require.Equal(t, []string{"up", "test"}, got[1].Targets)
	require.Empty(t, CommandsIn("d.md", 1, "make -C dir"), "make without a target names none")
}
