// Command testreport makes `make test` say what it left out. It reads
// `go test -json` on stdin and prints what go test prints without -json (the
// logs of failed tests, each package's ok or FAIL line, the closing FAIL),
// and appends every skipped test, with the reason it gave, to a file. Run
// with -summary, it lists those skips, grouped by reason: a reason says how
// to run the test (a tool to install, a flag or variable to set).
//
//	go test -json ./... 2>&1 | testreport -record bin/test-skips.jsonl
//	testreport -summary bin/test-skips.jsonl
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
)

func main() {
	record := flag.String("record", "", "read go test -json from stdin and append each skip to this file")
	summary := flag.String("summary", "", "list the skips recorded in this file")
	flag.Parse()
	err := run(*record, *summary)
	if err != nil && !errors.Is(err, errTestsFailed) {
		fmt.Fprintln(os.Stderr, "testreport:", err)
	}
	if err != nil {
		os.Exit(1)
	}
}

// errTestsFailed is a run whose tests failed: go test's own output has
// said which, so main adds nothing but the exit code.
var errTestsFailed = errors.New("tests failed")

func run(record, summary string) error {
	switch {
	case record != "" && summary == "":
		return recordRun(os.Stdin, os.Stdout, record)
	case summary != "" && record == "":
		skips, err := readSkips(summary)
		if err != nil {
			return err
		}
		return writeSummary(os.Stdout, skips)
	default:
		return errors.New("give one of -record FILE or -summary FILE")
	}
}

func recordRun(in io.Reader, out io.Writer, record string) error {
	f, err := os.OpenFile(record, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("open the skip record: %w", err)
	}
	defer f.Close()
	enc := json.NewEncoder(f)
	p := newPrinter(out, func(s Skip) error { return enc.Encode(s) })
	if err := p.read(in); err != nil {
		return err
	}
	if p.failed {
		return errTestsFailed
	}
	return nil
}

func readSkips(path string) ([]Skip, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("open the skip record: %w", err)
	}
	defer f.Close()
	var skips []Skip
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var s Skip
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			return nil, fmt.Errorf("read the skip record %s: %w", path, err)
		}
		skips = append(skips, s)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read the skip record %s: %w", path, err)
	}
	return skips, nil
}
