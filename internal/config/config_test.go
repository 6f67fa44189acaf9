package config_test

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/internal/config"
)

type sample struct {
	port   int
	token  string
	dev    bool
	shared string
}

// sampleTable is a program with a parsed default, a secret required outside
// dev mode, a switch, and a variable a shared reader reads in Finish.
func sampleTable(sharedReads ...string) config.Table[sample] {
	return config.Table[sample]{
		Program: "sample",
		Settings: []config.Setting[sample]{
			{Name: "SAMPLE_PORT", Default: "8080", Description: "port", Parse: func(s *sample, v string) (err error) {
				s.port, err = strconv.Atoi(v)
				return err
			}},
			{Name: "SAMPLE_TOKEN", Secret: true, Required: func(s *sample) bool { return !s.dev }, RequiredWhen: "unless SAMPLE_DEV=1",
				Description: "token", Parse: func(s *sample, v string) error {
					s.token = v
					if strings.HasPrefix(v, "bad") {
						return fmt.Errorf("%q is not a token", v)
					}
					return nil
				}},
			{Name: "SAMPLE_DEV", Default: "0", Description: "dev mode", Parse: func(s *sample, v string) (err error) {
				s.dev, err = config.Flag(v)
				return err
			}},
			{Name: "SAMPLE_SHARED", Description: "read by a shared reader"},
		},
		Finish: func(s *sample, get func(string) string) error {
			s.shared = get("SAMPLE_SHARED")
			for _, name := range sharedReads {
				_ = get(name)
			}
			if s.shared == "boom" {
				return fmt.Errorf("SAMPLE_SHARED: %s with token %s", s.shared, s.token)
			}
			return nil
		},
	}
}

func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

func TestReadAppliesDefaultsToUnsetAndEmptyVariables(t *testing.T) {
	s, err := sampleTable().Read(env(map[string]string{"SAMPLE_TOKEN": "t0k", "SAMPLE_PORT": "", "SAMPLE_SHARED": "x"}))

	require.NoError(t, err)
	require.Equal(t, sample{port: 8080, token: "t0k", shared: "x"}, s)
}

func TestReadNamesTheVariableOfABadValue(t *testing.T) {
	_, err := sampleTable().Read(env(map[string]string{"SAMPLE_TOKEN": "t0k", "SAMPLE_PORT": "eighty"}))

	require.ErrorContains(t, err, `SAMPLE_PORT: strconv.Atoi: parsing "eighty"`)
	var cfgErr *config.Error
	require.ErrorAs(t, err, &cfgErr)
	require.Equal(t, "SAMPLE_PORT", cfgErr.Name)
	require.ErrorIs(t, err, strconv.ErrSyntax, "the cause stays reachable")
}

func TestReadNeverQuotesASecretValue(t *testing.T) {
	_, err := sampleTable().Read(env(map[string]string{"SAMPLE_TOKEN": "bad-hunter2"}))
	require.ErrorContains(t, err, "SAMPLE_TOKEN: ")
	require.NotContains(t, err.Error(), "hunter2")

	_, err = sampleTable().Read(env(map[string]string{"SAMPLE_TOKEN": "hunter2", "SAMPLE_SHARED": "boom"}))
	require.ErrorContains(t, err, "SAMPLE_SHARED: boom")
	require.NotContains(t, err.Error(), "hunter2", "a shared reader's message is redacted too")
	var cfgErr *config.Error
	require.ErrorAs(t, err, &cfgErr)
}

func TestReadNamesEveryMissingRequiredVariableUnlessWaived(t *testing.T) {
	_, err := sampleTable().Read(env(nil))
	require.EqualError(t, err, "SAMPLE_TOKEN not set: sample needs it unless SAMPLE_DEV=1")
	var cfgErr *config.Error
	require.ErrorAs(t, err, &cfgErr, "a main tells a configuration error by its type")

	s, err := sampleTable().Read(env(map[string]string{"SAMPLE_DEV": "1"}))
	require.NoError(t, err)
	require.True(t, s.dev)
	require.Empty(t, s.token)
}

// A shared reader that asks for a variable the table does not list would
// read it behind the table's back: docs, --help and the compose check would
// all miss it.
func TestReadRefusesASharedReaderAskingForAnUndeclaredVariable(t *testing.T) {
	_, err := sampleTable("SAMPLE_SECRETLY", "SAMPLE_SECRETLY", "SAMPLE_TOO").Read(env(map[string]string{
		"SAMPLE_TOKEN": "t0k", "SAMPLE_SECRETLY": "set",
	}))

	require.EqualError(t, err, "sample reads SAMPLE_SECRETLY, SAMPLE_TOO, which its settings table does not list")
}

func TestFlagAcceptsOnlyOnOrOff(t *testing.T) {
	for v, want := range map[string]bool{"": false, "0": false, "false": false, "1": true, "true": true, " TRUE ": true} {
		got, err := config.Flag(v)
		require.NoError(t, err, v)
		require.Equal(t, want, got, v)
	}
	for _, v := range []string{"yes", "2", "on", "truee"} {
		_, err := config.Flag(v)
		require.Error(t, err, v)
	}
}

func TestHTTPURLRefusesCredentialsWithoutQuotingThem(t *testing.T) {
	require.NoError(t, config.HTTPURL(""))
	require.NoError(t, config.HTTPURL("http://127.0.0.1:9090/"))
	for _, v := range []string{"ftp://x", "api.github.com", "http://", "http://bad host/", "https://bot:s3cret@ghe.example.com/", "https://bot:s3cret@bad host/"} {
		err := config.HTTPURL(v)
		require.Error(t, err, v)
		require.NotContains(t, err.Error(), "s3cret")
	}
}

func TestNoWhitespaceRefusesAPastedNewline(t *testing.T) {
	require.NoError(t, config.NoWhitespace("ghp_abc"))
	for _, v := range []string{"ghp_abc\n", "a b", "a\tb", "a\x7f"} {
		require.Error(t, config.NoWhitespace(v), "%q", v)
	}
}

func TestHelpListsEverySettingWithItsDefaultOrRequirement(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, sampleTable().WriteHelp(&out))

	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.Len(t, lines, 2+len(sampleTable().Settings)+2)
	require.Contains(t, lines[len(lines)-1], "NAME_FILE=/path", "a table with a secret tells how to give it as a file")
	require.Regexp(t, `SAMPLE_PORT +\[default 8080\] +port`, lines[2])
	require.Regexp(t, `SAMPLE_TOKEN +\[required unless SAMPLE_DEV=1, secret\] +token`, lines[3])
	require.Regexp(t, `SAMPLE_SHARED +\[optional\] +read by a shared reader`, lines[5])
	for _, args := range [][]string{nil, {"--help", "x"}, {"help"}, {"--verbose"}} {
		out.Reset()
		require.False(t, sampleTable().PrintHelp(args, &out), "%q", args)
		require.Empty(t, out.String())
	}
	for _, arg := range []string{"-h", "-help", "--help"} {
		out.Reset()
		require.True(t, sampleTable().PrintHelp([]string{arg}, &out))
		require.Contains(t, out.String(), "SAMPLE_SHARED")
	}
}

func TestVarsDescribeTheTableInItsOrder(t *testing.T) {
	vars := sampleTable().Vars()

	require.Equal(t, config.Var{Name: "SAMPLE_TOKEN", Description: "token", Secret: true, Required: true, RequiredWhen: "unless SAMPLE_DEV=1"}, vars[1])
	require.Equal(t, []string{"SAMPLE_PORT", "SAMPLE_TOKEN", "SAMPLE_DEV", "SAMPLE_SHARED"}, names(vars))
}

func names(vars []config.Var) []string {
	out := make([]string, len(vars))
	for i, v := range vars {
		out[i] = v.Name
	}
	return out
}

func TestDocumentedProgramsReadsOnlyTheSectionsSettingsTable(t *testing.T) {
	page := "# T\n\n| endpoint | what |\n|---|---|\n| `GET /` | `NOT_A_SETTING` |\n\n" +
		"## Configuration\n\n| variable | used by | default | meaning |\n|---|---|---|---|\n" +
		"| `SAMPLE_PORT` | sample, other | `8080` | port (see `SAMPLE_DEV`) |\n" +
		"| `SAMPLE_TOKEN`, `SAMPLE_GONE` | sample | (required) | token |\n" +
		"| `SAMPLE_DEV` | other | `0` | dev |\n\n## Next\n\n| `SAMPLE_SHARED` | sample | | |\n"

	documented := config.DocumentedPrograms(page, "## Configuration")

	require.Equal(t, map[string][]string{
		"SAMPLE_PORT": {"sample", "other"}, "SAMPLE_TOKEN": {"sample"}, "SAMPLE_GONE": {"sample"}, "SAMPLE_DEV": {"other"},
	}, documented)
	missing, stale := config.Undocumented("sample", sampleTable().Vars(), documented)
	require.Equal(t, []string{"SAMPLE_DEV", "SAMPLE_SHARED"}, missing)
	require.Equal(t, []string{"SAMPLE_GONE"}, stale)
}

func TestReadRefusesATableThatListsAVariableTwice(t *testing.T) {
	table := sampleTable()
	table.Settings = append(table.Settings, config.Setting[sample]{Name: "SAMPLE_PORT", Parse: func(s *sample, v string) error {
		s.port = 1
		return nil
	}})

	s, err := table.Read(env(map[string]string{"SAMPLE_TOKEN": "t0k"}))

	require.EqualError(t, err, "sample's settings table lists SAMPLE_PORT twice")
	require.Equal(t, sample{}, s, "a failed read hands back nothing half-filled")
}

// A setting nothing parses or reads would be documented, checked against
// compose and shown by --help while changing nothing.
func TestReadRefusesATableListingAVariableNothingReads(t *testing.T) {
	table := sampleTable()
	table.Settings = append(table.Settings, config.Setting[sample]{Name: "SAMPLE_DEAD", Description: "no one reads it"})

	_, err := table.Read(env(map[string]string{"SAMPLE_TOKEN": "t0k"}))
	require.EqualError(t, err, "sample's settings table lists SAMPLE_DEAD, which nothing parses or reads")

	table.Finish = nil
	_, err = table.Read(env(map[string]string{"SAMPLE_TOKEN": "t0k"}))
	require.EqualError(t, err, "sample's settings table lists SAMPLE_SHARED, SAMPLE_DEAD, which nothing parses or reads")
}
