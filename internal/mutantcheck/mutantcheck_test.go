package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const source = `package calc

// Sign is -1, 0 or 1.
func Sign(n int) int {
	switch {
	case n < 0:
		return -1
	case n == 0:
		return 0
	}
	return 1
}

func Twice(n int) int { return n + n }

func Greeting() string { return "hello, " + "you" }

func Sum(n int) (s int) {
	for i := 0; i < n; i++ {
		s += i
	}
	return s
}
`

func TestMutateReplacesTheOneTokenAtTheReportedPosition(t *testing.T) {
	cases := []struct {
		kind         string
		line, column int
		want         string
	}{
		{"CONDITIONALS_BOUNDARY", 6, 9, "case n <= 0:"},
		{"CONDITIONALS_NEGATION", 6, 9, "case n >= 0:"},
		{"CONDITIONALS_NEGATION", 8, 9, "case n != 0:"},
		{"INVERT_NEGATIVES", 7, 10, "return +1"},
		{"ARITHMETIC_BASE", 14, 34, "return n - n"},
	}
	for _, c := range cases {
		out, err := Mutate([]byte(source), c.kind, c.line, c.column)
		require.NoError(t, err, c.kind)
		require.Contains(t, string(out), c.want, c.kind)
		require.Equal(t, len(strings.Split(source, "\n")), len(strings.Split(string(out), "\n")))
		diff := 0
		for i, l := range strings.Split(source, "\n") {
			if l != strings.Split(string(out), "\n")[i] {
				diff++
			}
		}
		require.Equal(t, 1, diff, "one line changes")
	}
}

func TestMutateRefusesAPositionOfAnotherVersionOfTheFile(t *testing.T) {
	for _, c := range []struct {
		kind         string
		line, column int
		why          string
	}{
		{"CONDITIONALS_NEGATION", 6, 8, "stale position: no token at 6:8"},
		{"CONDITIONALS_NEGATION", 14, 34, `stale position: 14:34 holds "+", which CONDITIONALS_NEGATION does not mutate`},
		{"ARITHMETIC_BASE", 99, 1, "no token at 99:1"},
		{"SOMETHING_ELSE", 6, 9, `unknown mutator type "SOMETHING_ELSE"`},
	} {
		_, err := Mutate([]byte(source), c.kind, c.line, c.column)
		require.ErrorContains(t, err, c.why)
	}
}

// A module whose tests reach Sign's case expressions (gremlins would call
// their mutants not covered) and leave Twice's + unchecked: the re-run
// kills the first, finds the second living, and exits saying so.
func TestRunKillsTheReachedMutantsAndReportsTheLivingOne(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644))
	}
	write("go.mod", "module example.com/calc\n\ngo 1.22\n")
	write("calc/calc.go", source)
	write("calc/calc_test.go", `package calc

import "testing"

func TestSign(t *testing.T) {
	if Sign(-3) != -1 || Sign(0) != 0 || Sign(5) != 1 {
		t.Fatal("sign")
	}
	_ = Twice(0)
	if Sum(3) != 3 {
		t.Fatal("sum")
	}
}
`)
	rep := map[string]any{"files": []any{map[string]any{"file_name": "calc.go", "mutations": []any{
		map[string]any{"type": "CONDITIONALS_NEGATION", "status": "NOT COVERED", "line": 6, "column": 9},
		map[string]any{"type": "CONDITIONALS_NEGATION", "status": "NOT COVERED", "line": 8, "column": 9},
		map[string]any{"type": "ARITHMETIC_BASE", "status": "LIVED", "line": 14, "column": 34},
		map[string]any{"type": "INVERT_NEGATIVES", "status": "KILLED", "line": 7, "column": 10},
		map[string]any{"type": "ARITHMETIC_BASE", "status": "NOT COVERED", "line": 16, "column": 43},
		map[string]any{"type": "INCREMENT_DECREMENT", "status": "LIVED", "line": 19, "column": 22},
		map[string]any{"type": "CONDITIONALS_BOUNDARY", "status": "LIVED", "line": 8, "column": 9},
	}}}}
	raw, err := json.Marshal(rep)
	require.NoError(t, err)
	write("report.json", string(raw))
	t.Chdir(dir)

	var out bytes.Buffer
	err = run(t.Context(), []string{"-pkg", "calc", "-timeout", "5s", "report.json"}, &out)
	var lived errLived
	require.ErrorAs(t, err, &lived, out.String())
	require.Equal(t, errLived(1), lived)
	got := out.String()
	require.Contains(t, got, "KILLED       CONDITIONALS_NEGATION  calc.go:6:9 (was NOT COVERED)")
	require.Contains(t, got, "LIVED        ARITHMETIC_BASE        calc.go:14:34 (was LIVED)")
	require.Contains(t, got, "gremlins: killed 1, lived 3, not covered 3, timed out 0, not viable 0: efficacy 25.00%, coverage 57.14%")
	require.Contains(t, got, "KILLED       CONDITIONALS_NEGATION  calc.go:8:9 (was NOT COVERED)")
	require.NotContains(t, got, "calc.go:7:10", "a killed mutant is not run again")
	require.Contains(t, got, "NOT VIABLE   ARITHMETIC_BASE        calc.go:16:43 (was NOT COVERED)", "a string's + turned into - does not build")
	require.Contains(t, got, `STALE        CONDITIONALS_BOUNDARY  calc.go:8:9 (was LIVED): stale position: 8:9 holds "==", which CONDITIONALS_BOUNDARY does not mutate`)
	require.Contains(t, got, "TIMED OUT    INCREMENT_DECREMENT    calc.go:19:22 (was LIVED)", "i-- never ends the loop")
	require.Contains(t, got, "after the re-run: killed 3, lived 2, not covered 0, timed out 1, not viable 1: efficacy 60.00%, coverage 100.00%")
}

// Tests that fail without a mutant would count every mutant as killed: the
// re-run refuses to start.
func TestRunRefusesPackageTestsThatFailWithoutAMutant(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "calc"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/calc\n\ngo 1.22\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "calc", "calc.go"), []byte(source), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "calc", "calc_test.go"), []byte("package calc\n\nimport \"testing\"\n\nfunc TestBroken(t *testing.T) { t.Fatal(\"broken\") }\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "report.json"), []byte(`{"files":[{"file_name":"calc.go","mutations":[{"type":"CONDITIONALS_NEGATION","status":"NOT COVERED","line":6,"column":9}]}]}`), 0o644))
	t.Chdir(dir)
	var out bytes.Buffer
	err := run(t.Context(), []string{"-pkg", "calc", "report.json"}, &out)
	require.ErrorContains(t, err, "the tests of calc do not pass without a mutant (they fail)")
	require.Empty(t, out.String(), "no mutant was run")
}

// The gate of `make test-mutation`: the figures after the re-run, not
// gremlins' exit code (v0.6.0 never fails on --threshold-efficacy), decide
// whether a package passes. With -status "" nothing runs again and
// gremlins' own figures are judged.
func TestThresholdFailsAPackageWhoseFiguresAreUnderIt(t *testing.T) {
	dir := t.TempDir()
	mutants := func(statuses ...string) []any {
		var ms []any
		for i, s := range statuses {
			ms = append(ms, map[string]any{"type": "CONDITIONALS_NEGATION", "status": s, "line": i + 1, "column": 1})
		}
		return ms
	}
	report := func(name string, statuses ...string) string {
		raw, err := json.Marshal(map[string]any{"files": []any{map[string]any{"file_name": "x.go", "mutations": mutants(statuses...)}}})
		require.NoError(t, err)
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, raw, 0o644))
		return path
	}
	nineKilled := []string{"KILLED", "KILLED", "KILLED", "KILLED", "KILLED", "KILLED", "KILLED", "KILLED", "KILLED"}
	exactly90 := report("exactly90.json", append(nineKilled, "LIVED", "TIMED OUT", "NOT VIABLE")...)
	under := report("under.json", append(nineKilled[:8], "LIVED", "LIVED")...)
	uncovered := report("uncovered.json", append(nineKilled, "NOT COVERED", "NOT COVERED")...)

	gate := func(path, threshold string) error {
		var out bytes.Buffer
		return run(t.Context(), []string{"-pkg", "nowhere", "-status", "", "-threshold", threshold, path}, &out)
	}
	require.NoError(t, gate(exactly90, "90"), "90% efficacy meets a threshold of 90")
	var below errBelow
	require.ErrorAs(t, gate(under, "90"), &below)
	require.Equal(t, "efficacy 80.00% is under the threshold of 90%", below.Error())
	require.ErrorAs(t, gate(uncovered, "90"), &below)
	require.Equal(t, "coverage 81.82% is under the threshold of 90%", below.Error())
	require.NoError(t, gate(uncovered, "80"))
	require.NoError(t, gate(under, "0"), "no threshold, no gate")
}
