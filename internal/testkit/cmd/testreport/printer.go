package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
)

// event is one line of `go test -json` (cmd/test2json's TestEvent).
type event struct {
	Action  string
	Package string
	Test    string
	Output  string
}

// Skip is one skipped test and the reason its t.Skip gave.
type Skip struct {
	Package string
	Test    string
	Reason  string
}

// testOutput is what a running test has printed: its log lines, its
// closing "--- FAIL" line, and the blocks of its failed subtests.
type testOutput struct {
	logs     []string
	result   string
	children []string
}

// printer turns the -json stream back into go test's plain output.
type printer struct {
	out     io.Writer
	onSkip  func(Skip) error
	running map[string]*testOutput // by package + "\x00" + test
	failed  bool
}

func newPrinter(out io.Writer, onSkip func(Skip) error) *printer {
	return &printer{out: out, onSkip: onSkip, running: map[string]*testOutput{}}
}

func (p *printer) read(in io.Reader) error {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &e) != nil || e.Action == "" {
			// The go command's own messages (2>&1) are not JSON.
			fmt.Fprintf(p.out, "%s\n", line)
			continue
		}
		if err := p.handle(e); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read go test -json: %w", err)
	}
	if p.failed {
		// go test ends with this line when any package failed; CI reads it.
		fmt.Fprintln(p.out, "FAIL")
	}
	return nil
}

func (p *printer) handle(e event) error {
	switch {
	case e.Action == "build-output":
		fmt.Fprint(p.out, e.Output)
	case e.Action == "build-fail":
		p.failed = true
	case e.Test == "":
		p.packageEvent(e)
	case e.Action == "output":
		p.test(e).add(e.Output)
	case e.Action == "pass":
		delete(p.running, key(e))
	case e.Action == "skip":
		t := p.test(e)
		delete(p.running, key(e))
		return p.onSkip(Skip{Package: e.Package, Test: e.Test, Reason: t.reason()})
	case e.Action == "fail":
		t := p.test(e)
		delete(p.running, key(e))
		p.failedTest(e, t.block())
	}
	return nil
}

func (p *printer) packageEvent(e event) {
	switch e.Action {
	case "output":
		// Without -json a passing package prints only its ok line.
		if e.Output != "PASS\n" {
			fmt.Fprint(p.out, e.Output)
		}
	case "fail":
		p.failed = true
		// A test binary that died mid-test (a panic, the timeout) leaves
		// tests without an end; what they printed explains the death.
		prefix := e.Package + "\x00"
		var unfinished []string
		for k := range p.running {
			if strings.HasPrefix(k, prefix) {
				unfinished = append(unfinished, k)
			}
		}
		sort.Strings(unfinished)
		for _, k := range unfinished {
			fmt.Fprint(p.out, p.running[k].block())
			delete(p.running, k)
		}
	}
}

// failedTest prints a failed test's block, under its parent when the
// parent is still running, as go test nests a failed subtest.
func (p *printer) failedTest(e event, block string) {
	if i := strings.LastIndex(e.Test, "/"); i > 0 {
		if parent, ok := p.running[e.Package+"\x00"+e.Test[:i]]; ok {
			parent.children = append(parent.children, indent(block))
			return
		}
	}
	fmt.Fprint(p.out, block)
}

func (p *printer) test(e event) *testOutput {
	k := key(e)
	t, ok := p.running[k]
	if !ok {
		t = &testOutput{}
		p.running[k] = t
	}
	return t
}

func key(e event) string { return e.Package + "\x00" + e.Test }

func (t *testOutput) add(output string) {
	switch {
	case strings.HasPrefix(output, "=== "):
		// RUN, PAUSE, CONT and NAME exist only in verbose output.
	case strings.HasPrefix(output, "--- "):
		t.result = output
	default:
		t.logs = append(t.logs, output)
	}
}

func (t *testOutput) block() string {
	return t.result + strings.Join(t.logs, "") + strings.Join(t.children, "")
}

// reason is what the test logged before it skipped, without the file:line
// each log line starts with, so tests skipped for one reason group.
func (t *testOutput) reason() string {
	var lines []string
	for _, l := range strings.Split(strings.Join(t.logs, ""), "\n") {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		if i := strings.Index(l, ".go:"); i > 0 && !strings.Contains(l[:i], " ") {
			if j := strings.Index(l[i:], ": "); j > 0 {
				l = l[i+j+2:]
			}
		}
		lines = append(lines, l)
	}
	return strings.Join(lines, "\n")
}

func indent(block string) string {
	lines := strings.SplitAfter(block, "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = "    " + l
		}
	}
	return strings.Join(lines, "")
}
