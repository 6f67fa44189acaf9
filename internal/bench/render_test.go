package bench

import (
	"fmt"
	"os"
	"os/exec"
	"runtime/pprof"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The generated part of docs/benchmarks.md lies between these markers; the
// prose around it is written by hand and kept.
const (
	generatedBegin = "<!-- make bench: begin -->"
	generatedEnd   = "<!-- make bench: end -->"
)

type reportInput struct {
	scale            benchScale
	machine          machine
	started          time.Time
	took             time.Duration
	rows             []goalRow
	notes            []string // a line each, after the shapes
	profileTop       string
	shape, baseShape runShape
	slowQueries      int64
}

func renderReport(in reportInput) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "Measured %s (UTC) at %s scale in %.0f s, by `make bench`\n", in.started.Format("2006-01-02 15:04"), in.scale.name, in.took.Seconds())
	fmt.Fprintf(&sb, "(`AGENTRUN_BENCH=full go test ./internal/bench -run '^TestBenchReport$' -count=1 -v`).\n")
	fmt.Fprintf(&sb, "Machine: %d CPUs, %s; load average at start %s (other builds and tests share it).\n\n", in.machine.cpus, in.machine.model, in.machine.load)
	sb.WriteString("| measure | goal | measured: ratio (agentrun / bare) or value | goal met |\n|---|---|---|---|\n")
	for _, r := range in.rows {
		met := "met"
		if !r.met {
			met = "**not met**"
		}
		fmt.Fprintf(&sb, "| %s | %s | %s | %s |\n", r.measure, r.goal, r.measured, met)
	}
	fmt.Fprintf(&sb, "\nagentrun: %s.\nbare: %s.\nagentrun's history bytes by event: %s.\n", in.shape, in.baseShape, in.shape.byteBreakdown())
	for _, n := range in.notes {
		sb.WriteString(n + "\n")
	}
	fmt.Fprintf(&sb, "Driver queries (either side) that timed out under load and were asked again: %d.\n", in.slowQueries)
	sb.WriteString("Latencies are the server's event times (signal received → activity task started), read from each run's history; ")
	sb.WriteString("the pull request rows time agentrun from the delivery's POST to what the sandbox holds, and the bare run from the driver's start or signal to its activity's started event (one machine, one clock). ")
	sb.WriteString("VmRSS is that of the bench process, which holds the worker (and the driver and the sandbox, which keep nothing per waiting run).\n")
	if in.profileTop != "" {
		fmt.Fprintf(&sb, "\nCPU profile of the bench process (worker and driver), top entries:\n\n```\n%s```\n", in.profileTop)
	}
	return sb.String()
}

// replaceGenerated rewrites what lies between the markers in path; a file
// without them gets them appended.
func replaceGenerated(path, generated string) error {
	return replaceBetween(path, generatedBegin, generatedEnd, generated)
}

// replaceBetween rewrites what lies between begin and end in path; a file
// without them gets them appended.
func replaceBetween(path, generatedBegin, generatedEnd, generated string) error {
	body, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	text := string(body)
	head, rest, found := strings.Cut(text, generatedBegin)
	tail := ""
	if found {
		_, after, ok := strings.Cut(rest, generatedEnd)
		if !ok {
			return fmt.Errorf("%s: %q without %q", path, generatedBegin, generatedEnd)
		}
		tail = after
	} else {
		head = strings.TrimRight(text, "\n") + "\n\n"
		tail = "\n"
	}
	text = head + generatedBegin + "\n" + generated + generatedEnd + tail
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// goalTable returns the cells of the goal table's rows in the generated part.
func goalTable(t *testing.T, doc string) [][]string {
	t.Helper()
	_, rest, ok := strings.Cut(doc, generatedBegin)
	require.True(t, ok, "no %q", generatedBegin)
	generated, _, ok := strings.Cut(rest, generatedEnd)
	require.True(t, ok, "no %q", generatedEnd)
	var rows [][]string
	inTable := false
	for line := range strings.SplitSeq(generated, "\n") {
		switch {
		case strings.HasPrefix(line, "| measure | goal |"):
			inTable = true
		case inTable && strings.HasPrefix(line, "|---"):
		case inTable && strings.HasPrefix(line, "| "):
			cells := strings.Split(strings.Trim(line, "|"), " | ")
			for i := range cells {
				cells[i] = strings.TrimSpace(cells[i])
			}
			rows = append(rows, cells)
		default:
			inTable = false
		}
	}
	return rows
}

// startCPUProfile profiles this process into path until the returned stop,
// which answers pprof's top entries; an empty path profiles nothing.
func startCPUProfile(t *testing.T, path string) (stop func() string) {
	t.Helper()
	if path == "" {
		return func() string { return "" }
	}
	f, err := os.Create(path)
	require.NoError(t, err)
	require.NoError(t, pprof.StartCPUProfile(f))
	return func() string {
		pprof.StopCPUProfile()
		require.NoError(t, f.Close())
		var sb strings.Builder
		for _, side := range []string{sideWorker, sideDriver} {
			fmt.Fprintf(&sb, "%s (goroutines labelled %s=%s):\n%s\n", side, sideLabel, side, profileTop(t, path, "-tagfocus="+sideLabel+"="+side))
		}
		return strings.TrimSuffix(sb.String(), "\n")
	}
}

// The rig labels the goroutines of each side, so that one profile of the
// one process tells the worker's CPU from the driver's; what neither side
// started (the gRPC connection they share, the sandbox) is in neither.
const (
	sideLabel  = "side"
	sideWorker = "worker"
	sideDriver = "driver"
)

func profileTop(t *testing.T, path string, args ...string) string {
	t.Helper()
	top, err := exec.Command("go", append(append([]string{"tool", "pprof", "-top", "-nodecount=12"}, args...), path)...).Output()
	require.NoError(t, err, "go tool pprof -top %s", path)
	// Keep the table: pprof's header names the binary and the file.
	_, table, ok := strings.Cut(string(top), "      flat  flat%")
	if !ok {
		return string(top)
	}
	return "      flat  flat%" + table
}
