package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// newFlagSet makes a flag set that reports errors instead of exiting, so the
// caller decides the exit code.
func newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

// parseArgs parses flags wherever they appear, so that
// `starter status RUN_ID --json` works as well as `starter status --json RUN_ID`,
// and returns the positional arguments. synopsis is the usage's first line.
func parseArgs(fs *flag.FlagSet, synopsis string, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, usageErr(fs, synopsis, err)
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return positional, nil
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}

// usageErr wraps err with the usage of fs.
func usageErr(fs *flag.FlagSet, synopsis string, err error) error {
	var b strings.Builder
	fmt.Fprintf(&b, "usage: starter %s\n", synopsis)
	fs.SetOutput(&b)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
	return &usageError{command: fs.Name(), usage: b.String(), err: err}
}

// parseRunID parses the command line of a command about one run: flags
// anywhere, and exactly one run ID.
func parseRunID(fs *flag.FlagSet, synopsis string, args []string) (string, error) {
	positional, err := parseArgs(fs, synopsis, args)
	if err != nil {
		return "", err
	}
	switch {
	case len(positional) == 0:
		return "", usageErr(fs, synopsis, errNoRunID)
	case len(positional) > 1:
		return "", usageErr(fs, synopsis, fmt.Errorf("unexpected arguments after the run ID: %s", strings.Join(positional[1:], " ")))
	case strings.TrimSpace(positional[0]) == "":
		return "", usageErr(fs, synopsis, errors.New("empty RUN_ID"))
	}
	return positional[0], nil
}

// parseNoArgs parses the command line of a command that takes flags only.
func parseNoArgs(fs *flag.FlagSet, synopsis string, args []string) error {
	positional, err := parseArgs(fs, synopsis, args)
	if err != nil {
		return err
	}
	if len(positional) > 0 {
		return usageErr(fs, synopsis, fmt.Errorf("unexpected arguments: %s", strings.Join(positional, " ")))
	}
	return nil
}

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string { return strings.Join(*l, ",") }

func (l *stringList) Set(v string) error {
	if strings.TrimSpace(v) == "" {
		return errors.New("empty value")
	}
	*l = append(*l, v)
	return nil
}
