package main

import (
	"errors"
	"flag"
	"fmt"
)

// errHelp marks a usageError that is the answer to -h.
var errHelp = flag.ErrHelp

// usageError is a bad command line: the process exits 2 and shows the usage.
type usageError struct {
	command string
	usage   string
	err     error
}

func (e *usageError) Error() string { return e.command + ": " + e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

// configError is a bad environment variable: exit 2, like a bad flag.
type configError struct{ err error }

func (e *configError) Error() string { return "configuration: " + e.err.Error() }
func (e *configError) Unwrap() error { return e.err }

// runClosedError says the run has already finished, so it takes no signal.
type runClosedError struct {
	runID  string
	status string
}

func (e *runClosedError) Error() string {
	return fmt.Sprintf("run %q has already finished (%s)", e.runID, e.status)
}

// ignoredError is a signal the run received and ignored, with its reason.
type ignoredError struct{ detail string }

func (e *ignoredError) Error() string { return "the run ignored it: " + e.detail }

var errNoRunID = errors.New("missing RUN_ID")

// runEndedError is a followed run that ended without doing what it set out
// to: it failed, did none of its actions, or was cancelled. Its code is the
// process's exit code (main.go).
type runEndedError struct {
	runID, how string
	code       int
}

func (e *runEndedError) Error() string { return fmt.Sprintf("run %s %s", e.runID, e.how) }
