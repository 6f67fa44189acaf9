package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// testdata/mixed.jsonl is real `go test -json ./...` output of two packages:
// probe/p has a passing, a skipped and a failed test (in a subtest); probe/q
// passes, with a table row that skips with a two-line reason. A line the go
// command wrote to stderr ends it.
func recordMixed(t *testing.T) (string, string, error) {
	t.Helper()
	in, err := os.Open(filepath.Join("testdata", "mixed.jsonl"))
	require.NoError(t, err)
	defer in.Close()
	record := filepath.Join(t.TempDir(), "skips.jsonl")
	var out strings.Builder
	err = recordRun(in, &out, record)
	return out.String(), record, err
}

func TestRecordPrintsWhatGoTestPrintsWithoutJSON(t *testing.T) {
	out, _, err := recordMixed(t)

	require.ErrorIs(t, err, errTestsFailed, "a failed test fails the run")
	require.Contains(t, out, "--- FAIL: TestFail (0.00s)\n    --- FAIL: TestFail/sub (0.00s)\n        p_test.go:5: boom\n",
		"a failed subtest nests under its parent, with its log")
	require.Contains(t, out, "FAIL\tprobe/p\t")
	require.Contains(t, out, "ok  \tprobe/q\t")
	require.Contains(t, out, "go: a line the go command wrote to stderr\n")
	require.True(t, strings.HasSuffix(out, "\nFAIL\n"), "go test's closing FAIL line ends the output:\n%s", out)
	for _, verbose := range []string{"=== RUN", "--- PASS", "--- SKIP", "quiet", "\nPASS\n"} {
		require.NotContains(t, out, verbose, "only -v prints this")
	}
}

func TestSummaryListsEverySkipWithItsReason(t *testing.T) {
	_, record, _ := recordMixed(t)
	skips, err := readSkips(record)
	require.NoError(t, err)
	var out strings.Builder

	require.NoError(t, writeSummary(&out, skips))

	require.Equal(t, "make test skipped 2 tests; each reason says how to run them:\n"+
		"- needs chromium; apt-get install chromium\n"+
		"    probe/p TestSkip\n"+
		"- one row of the bench: set BENCH=full\n  it takes minutes\n"+
		"    probe/q TestTable/a\n", out.String())
}

func TestSummaryOfARunThatSkippedNothingSaysSo(t *testing.T) {
	skips, err := readSkips(filepath.Join(t.TempDir(), "never-written.jsonl"))
	require.NoError(t, err)
	var out strings.Builder

	require.NoError(t, writeSummary(&out, skips))

	require.Equal(t, "make test skipped no tests.\n", out.String())
}

func TestAPassingRunRecordsNoFailure(t *testing.T) {
	var out strings.Builder
	in := strings.NewReader(`{"Action":"output","Package":"x","Output":"ok  \tx\t0.1s\n"}` + "\n" + `{"Action":"pass","Package":"x"}` + "\n")

	err := recordRun(in, &out, filepath.Join(t.TempDir(), "skips.jsonl"))

	require.NoError(t, err)
	require.Equal(t, "ok  \tx\t0.1s\n", out.String())
}
