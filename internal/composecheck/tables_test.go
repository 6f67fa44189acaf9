package composecheck

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/agentrun/agentrun/internal/config"
	"github.com/compose-spec/compose-go/v2/types"
	"github.com/stretchr/testify/require"
)

// TestEveryProgramServiceSetsOnlyVariablesOfItsTable compares each built
// service's environment with its program's settings table: a variable set
// but not in the table is a typo or a leftover that makes the file lie, and
// a required one left out stops the program.
func TestEveryProgramServiceSetsOnlyVariablesOfItsTable(t *testing.T) {
	require.NoError(t, CheckEnvironments(mustLoadCompose(t, nil), Tables()))
}

func TestTheCheckNamesATypoedVariableAndAMissingRequiredOne(t *testing.T) {
	compose := readCompose(t)
	typo := strings.Replace(compose, "      GITHUB_BOT_LOGIN: ${GITHUB_BOT_LOGIN:-}", "      GITHUB_BOT_LOGNI: ${GITHUB_BOT_LOGIN:-}", 1)
	require.NotEqual(t, compose, typo, "the worker sets GITHUB_BOT_LOGIN")
	missing := withoutLinesStarting(compose, "      APPROVAL_SECRET: ")
	require.NotEqual(t, compose, missing, "the approval server sets APPROVAL_SECRET")

	err := CheckEnvironments(mustLoadComposeFile(t, writeCompose(t, typo), nil), Tables())
	require.ErrorContains(t, err, "service worker sets GITHUB_BOT_LOGNI, which worker does not read")
	err = CheckEnvironments(mustLoadComposeFile(t, writeCompose(t, missing), nil), Tables())
	require.ErrorContains(t, err, "service approval does not set APPROVAL_SECRET, which approval requires")
}

func TestTheCheckRefusesAServiceWhoseProgramHasNoTable(t *testing.T) {
	tables := Tables()
	delete(tables, "ghsandbox")

	err := CheckEnvironments(mustLoadCompose(t, nil), tables)

	require.ErrorContains(t, err, "service ghsandbox: runs ghsandbox, which has no settings table here")
}

// The variables compose refuses to start without are exactly the required
// settings of the programs it runs, so that adding one to a table without
// adding it here fails.
func TestComposeRequiresExactlyTheRequiredSettings(t *testing.T) {
	var required []string
	for _, vars := range Tables() {
		for _, v := range vars {
			if v.Required && v.Default == "" {
				required = append(required, v.Name)
			}
		}
	}
	require.ElementsMatch(t, slices.Collect(maps.Keys(requiredEnv)), slices.Compact(slices.Sorted(slices.Values(required))))
}

func withoutLinesStarting(text, prefix string) string {
	var kept []string
	for _, line := range strings.SplitAfter(text, "\n") {
		if !strings.HasPrefix(line, prefix) {
			kept = append(kept, line)
		}
	}
	return strings.Join(kept, "")
}

// A secret written into docker-compose.yml would be in every clone of the
// repository: each one must come from the operator's environment.
func TestComposeWritesNoSecretIntoTheFile(t *testing.T) {
	require.Empty(t, secretsWritten(mustLoadCompose(t, nil), Tables()))

	literal := strings.Replace(readCompose(t), "GITHUB_TOKEN: ${GITHUB_TOKEN:-}", "GITHUB_TOKEN: ghp_committed", 1)
	project := mustLoadComposeFile(t, writeCompose(t, literal), nil)
	require.Equal(t, []string{"worker sets GITHUB_TOKEN"}, secretsWritten(project, Tables()), "a literal token is caught")
}

// secretsWritten lists the secret settings a built service sets to a value
// that is neither empty nor what the test's environment gave.
func secretsWritten(project *types.Project, tables map[string][]config.Var) []string {
	var written []string
	for _, s := range builtServices(project) {
		env := environment(s)
		for _, v := range tables[s.Command[0]] {
			if value := env[v.Name]; v.Secret && value != "" && value != requiredEnv[v.Name] {
				written = append(written, s.Name+" sets "+v.Name)
			}
		}
	}
	return written
}
