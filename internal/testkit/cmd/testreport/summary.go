package main

import (
	"fmt"
	"io"
	"strings"
)

// modulePrefix is cut from package paths to keep the summary short.
const modulePrefix = "github.com/agentrun/agentrun/"

// writeSummary lists the skipped tests grouped by reason, in the order the
// reasons first came up.
func writeSummary(out io.Writer, skips []Skip) error {
	if len(skips) == 0 {
		_, err := fmt.Fprintln(out, "make test skipped no tests.")
		return err
	}
	var reasons []string
	byReason := map[string][]string{}
	for _, s := range skips {
		r := s.Reason
		if r == "" {
			r = "(the test gave no reason)"
		}
		if _, ok := byReason[r]; !ok {
			reasons = append(reasons, r)
		}
		pkg := strings.TrimPrefix(s.Package, modulePrefix)
		byReason[r] = append(byReason[r], pkg+" "+s.Test)
	}
	var b strings.Builder
	noun := "tests"
	if len(skips) == 1 {
		noun = "test"
	}
	fmt.Fprintf(&b, "make test skipped %d %s; each reason says how to run them:\n", len(skips), noun)
	for _, r := range reasons {
		fmt.Fprintf(&b, "- %s\n", strings.ReplaceAll(r, "\n", "\n  "))
		for _, name := range byReason[r] {
			fmt.Fprintf(&b, "    %s\n", name)
		}
	}
	_, err := io.WriteString(out, b.String())
	return err
}
