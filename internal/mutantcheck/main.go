// Command mutantcheck runs again, one at a time, the mutants a gremlins
// report counted as reached by no test or as living, each against the
// package's tests with `go test -overlay` carrying the mutated file.
//
// gremlins decides "not covered" from Go's coverage profile, which gives a
// switch's case expressions, and any expression outside a statement block,
// no block: a mutant there counts as reached by no test though the tests
// run it. A test that fails under the mutant proves the tests reach it, so
// the re-run turns gremlins' figures into what the tests really do:
//
//	mutantcheck -pkg ./workflows -goflags=-short .data/mutation/workflows.json
//
// It prints one line per mutant and the figures before and after. With
// -threshold it exits 3 when the figures after the re-run put efficacy or
// coverage under it (the gate of `make test-mutation`: gremlins v0.6.0's
// own --threshold-efficacy flag never fails a run); otherwise it exits 1
// when a re-run mutant lives.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "mutantcheck:", err)
		var lived errLived
		var below errBelow
		switch {
		case errors.As(err, &below):
			os.Exit(3)
		case errors.As(err, &lived):
			os.Exit(1)
		}
		os.Exit(2)
	}
}

type errLived int

func (e errLived) Error() string { return fmt.Sprintf("%d re-run mutants lived", int(e)) }

// errBelow is a package whose figures after the re-run are under the
// threshold.
type errBelow struct{ what, figure, threshold string }

func (e errBelow) Error() string {
	return fmt.Sprintf("%s %s is under the threshold of %s%%", e.what, e.figure, e.threshold)
}

func run(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("mutantcheck", flag.ContinueOnError)
	pkg := fs.String("pkg", "", "the package directory the report is of (./workflows)")
	goflags := fs.String("goflags", "", "flags for go test, space-separated (-short)")
	statuses := fs.String("status", "NOT COVERED,LIVED", "the report statuses to run again, comma-separated")
	timeout := fs.Duration("timeout", 0, "how long one mutant's tests may take before it counts as timed out (default: 3× the tests' run without a mutant, plus 30s)")
	threshold := fs.Float64("threshold", 0, "the least efficacy and coverage, in percent, the figures after the re-run may show (0: no gate)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *pkg == "" || fs.NArg() != 1 {
		return errors.New("usage: mutantcheck -pkg DIR [-goflags FLAGS] [-status LIST] [-timeout D] REPORT.json")
	}
	raw, err := os.ReadFile(fs.Arg(0))
	if err != nil {
		return err
	}
	var rep report
	if err := json.Unmarshal(raw, &rep); err != nil {
		return fmt.Errorf("read %s: %w", fs.Arg(0), err)
	}
	want := strings.Split(*statuses, ",")
	tally := map[string]int{}
	rerun := 0
	for _, f := range rep.Files {
		for _, m := range f.Mutations {
			tally[m.Status]++
			if slices.Contains(want, m.Status) {
				rerun++
			}
		}
	}
	// The tests must pass without a mutant, or every mutant would count as
	// killed; how long they take bounds a mutant's run.
	// -status "" runs none again and judges gremlins' own figures.
	start := time.Now()
	if rerun > 0 {
		if verdict, output := testPackage(ctx, *pkg, "", strings.Fields(*goflags), time.Hour); verdict != verdictLived {
			why := map[string]string{verdictKilled: "they fail", verdictNotViable: "the package does not build", verdictTimedOut: "they time out"}[verdict]
			return fmt.Errorf("the tests of %s do not pass without a mutant (%s):\n%s", *pkg, why, output)
		}
	}
	if *timeout == 0 {
		*timeout = 3*time.Since(start) + 30*time.Second
	}
	again := map[string]int{}
	lived := 0
	for _, f := range rep.Files {
		for _, m := range f.Mutations {
			if !slices.Contains(want, m.Status) {
				continue
			}
			verdict, err := check(ctx, filepath.Join(*pkg, f.Name), m, strings.Fields(*goflags), *timeout)
			if errors.Is(err, errStale) {
				// The file changed since the report: this mutant keeps
				// gremlins' status, and the line says why.
				fmt.Fprintf(out, "%-12s %-22s %s:%d:%d (was %s): %v\n", "STALE", m.Type, f.Name, m.Line, m.Column, m.Status, err)
				continue
			}
			if err != nil {
				return fmt.Errorf("%s:%d:%d %s: %w", f.Name, m.Line, m.Column, m.Type, err)
			}
			fmt.Fprintf(out, "%-12s %-22s %s:%d:%d (was %s)\n", verdict, m.Type, f.Name, m.Line, m.Column, m.Status)
			again[m.Status+" → "+verdict]++
			if verdict == verdictLived {
				lived++
			}
		}
	}
	efficacy, coverage := printFigures(out, tally, again)
	if *threshold > 0 {
		limit := strconv.FormatFloat(*threshold, 'f', -1, 64)
		for _, f := range []struct {
			what  string
			value float64
		}{{"efficacy", efficacy}, {"coverage", coverage}} {
			if f.value < *threshold {
				return errBelow{what: f.what, figure: fmt.Sprintf("%.2f%%", f.value), threshold: limit}
			}
		}
	}
	if lived > 0 {
		return errLived(lived)
	}
	return nil
}

// report is the part of a gremlins JSON report (-o) read here.
type report struct {
	Files []struct {
		Name      string     `json:"file_name"`
		Mutations []mutation `json:"mutations"`
	} `json:"files"`
}

type mutation struct {
	Type   string `json:"type"`
	Status string `json:"status"`
	Line   int    `json:"line"`
	Column int    `json:"column"`
}

const (
	verdictKilled    = "KILLED"
	verdictLived     = "LIVED"
	verdictTimedOut  = "TIMED OUT"
	verdictNotViable = "NOT VIABLE"
)

// check runs the tests of file's package with the mutant in place of file.
func check(ctx context.Context, file string, m mutation, goflags []string, timeout time.Duration) (string, error) {
	src, err := os.ReadFile(file)
	if err != nil {
		return "", err
	}
	mutated, err := Mutate(src, m.Type, m.Line, m.Column)
	if err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp("", "mutantcheck")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	abs, err := filepath.Abs(file)
	if err != nil {
		return "", err
	}
	mutant := filepath.Join(dir, filepath.Base(file))
	overlay := filepath.Join(dir, "overlay.json")
	body, _ := json.Marshal(map[string]map[string]string{"Replace": {abs: mutant}})
	if err := os.WriteFile(mutant, mutated, 0o600); err != nil {
		return "", err
	}
	if err := os.WriteFile(overlay, body, 0o600); err != nil {
		return "", err
	}
	verdict, _ := testPackage(ctx, filepath.Dir(file), overlay, goflags, timeout)
	return verdict, nil
}

// testPackage runs the tests of the package in dir, with overlay when
// set: LIVED when they pass, KILLED when they fail, NOT VIABLE when the
// package does not build, TIMED OUT past timeout. It returns the output.
func testPackage(ctx context.Context, dir, overlay string, goflags []string, timeout time.Duration) (string, string) {
	// The test binary stops itself past timeout (go test -timeout); the
	// context is a backstop for a build that hangs.
	ctx, cancel := context.WithTimeout(ctx, timeout+time.Minute)
	defer cancel()
	args := []string{"test", "-count=1", "-timeout", timeout.String()}
	if overlay != "" {
		args = append(args, "-overlay", overlay)
	}
	args = append(append(args, goflags...), "./"+filepath.Clean(dir))
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.WaitDelay = 5 * time.Second
	output, err := cmd.CombinedOutput()
	switch {
	case ctx.Err() != nil, strings.Contains(string(output), "panic: test timed out after"):
		return verdictTimedOut, string(output)
	case err == nil:
		return verdictLived, string(output)
	case strings.Contains(string(output), "[build failed]") || strings.Contains(string(output), "[setup failed]"):
		return verdictNotViable, string(output)
	default:
		return verdictKilled, string(output)
	}
}

// printFigures prints gremlins' figures, and the same once each re-run
// mutant counts as its re-run found: a not covered mutant that a test
// kills was reached and is killed; one that lives stays not covered (the
// re-run cannot tell whether a test reached it), so the coverage after
// the re-run is a lower bound of what the tests reach. As in gremlins,
// efficacy is killed / (killed + lived) and coverage (killed + lived) /
// (killed + lived + not covered); timed out and not viable mutants are in
// neither. It returns the efficacy and coverage after the re-run, in
// percent (100 where no mutant counts).
func printFigures(out io.Writer, tally, again map[string]int) (efficacy, coverage float64) {
	line := func(who string, c map[string]int) {
		k, l, n := c["KILLED"], c["LIVED"], c["NOT COVERED"]
		fmt.Fprintf(out, "%s: killed %d, lived %d, not covered %d, timed out %d, not viable %d: efficacy %s, coverage %s\n",
			who, k, l, n, c["TIMED OUT"], c["NOT VIABLE"], percent(k, k+l), percent(k+l, k+l+n))
		efficacy, coverage = ratio(k, k+l), ratio(k+l, k+l+n)
	}
	line("gremlins", tally)
	after := maps.Clone(tally)
	for key, n := range again {
		was, verdict, _ := strings.Cut(key, " → ")
		after[was] -= n
		if was == "NOT COVERED" && verdict == verdictLived {
			verdict = "NOT COVERED"
		}
		after[verdict] += n
	}
	line("after the re-run", after)
	return efficacy, coverage
}

func ratio(n, of int) float64 {
	if of == 0 {
		return 100
	}
	return 100 * float64(n) / float64(of)
}

func percent(n, of int) string {
	if of == 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f%%", ratio(n, of))
}
