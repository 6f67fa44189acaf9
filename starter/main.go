// Command starter starts agent runs and talks to them: status, events,
// approvals, operator resolutions and the list of runs. Each subcommand is a
// small type with Run(ctx, args) in its own file.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/agentrun/agentrun/internal/config"
	"github.com/agentrun/agentrun/internal/runview"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], config.Getenv, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

const usage = `usage: starter <command> [flags]

commands:
  start     start a run of an agent on its target and print its run ID
  status    show a run: status, steps, the pending action
  events    print a run's events (--follow to watch it)
  approve   approve a run's pending action (--edit-file to approve it edited)
  reject    reject a run's pending action
  respond   answer a run's pending action with feedback; the agent may propose again
  resolve   decide a step whose outcome could not be determined
  cancel    stop a run; an action in flight finishes and is checked first
  list      list runs; --status waiting_for_user lists the actions waiting for approval
  conversation  list a conversation's runs in order: the first and its follow-ups
  hold      stop the side effects of an agent, a target or a tool across runs
  release   release a hold: the runs it held go on, each sending its action once
  holds     list the active holds and who placed or released which, when and why

approve, reject, respond, resolve and cancel need Temporal, not a worker: with
no worker answering (3 s), the command is recorded and the run acts on it when a
worker picks it up; the command says so, with the run's last known state.

Exit codes: 0 done (or, with --follow, the run completed or waits for a
person), 1 error, 2 bad flags or settings. start --follow and events --follow
also exit 3 when the run failed, 4 when it did none of its actions (rejected
or expired), 5 when it was cancelled.

Run 'starter <command> -h' for the flags of a command. Encrypted runs need the
worker's AGENTRUN_PAYLOAD_KEYS; docs/operations.md covers real clusters.
`

// Exit codes. The last three are a followed run's (start --follow, events
// --follow): it ended, but not as asked. usage and docs/using.md list them.
const (
	exitOK           = 0
	exitError        = 1
	exitUsage        = 2
	exitRunFailed    = 3
	exitRunDeclined  = 4
	exitRunCancelled = 5
)

// command is one subcommand.
type command interface {
	Run(ctx context.Context, args []string) error
}

// commands are the subcommands in the order usage lists them.
var commands = []struct {
	name string
	make func(*env) command
}{
	{"start", func(e *env) command { return &startCommand{env: e} }},
	{"status", func(e *env) command { return &statusCommand{env: e} }},
	{"events", func(e *env) command { return &eventsCommand{env: e} }},
	{"approve", func(e *env) command { return &decideCommand{env: e, approve: true} }},
	{"reject", func(e *env) command { return &decideCommand{env: e, approve: false} }},
	{"respond", func(e *env) command { return &decideCommand{env: e, respond: true} }},
	{"resolve", func(e *env) command { return &resolveCommand{env: e} }},
	{"cancel", func(e *env) command { return &cancelCommand{env: e} }},
	{"list", func(e *env) command { return &listCommand{env: e} }},
	{"conversation", func(e *env) command { return &conversationCommand{env: e} }},
	{"hold", func(e *env) command { return &holdCommand{env: e} }},
	{"release", func(e *env) command { return &holdCommand{env: e, release: true} }},
	{"holds", func(e *env) command { return &holdsCommand{env: e} }},
}

func newCommand(name string, e *env) (command, bool) {
	for _, c := range commands {
		if c.name == name {
			return c.make(e), true
		}
	}
	return nil, false
}

func commandNames() []string {
	names := make([]string, len(commands))
	for i, c := range commands {
		names[i] = c.name
	}
	return names
}

// unknownCommand says what was typed and, for a typo, what was meant.
func unknownCommand(typed string) string {
	msg := fmt.Sprintf("starter: unknown command %q", typed)
	if near := nearestCommand(typed, commandNames()); near != "" {
		msg += fmt.Sprintf("; did you mean %s?", near)
	}
	return msg + "\n\n" + usage
}

// run executes one command line and returns the process exit code. All it
// prints goes through runview.VisibleWriter: much of it is text from a run
// (previews, labels, reasons, errors), which comes from outside.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	out, errOut := runview.NewVisibleWriter(stdout), runview.NewVisibleWriter(stderr)
	defer func() { _, _ = out.Flush(), errOut.Flush() }()
	stdout, stderr = out, errOut
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(stderr, usage+"\n")
		_ = starterSettings().WriteHelp(stderr) // stderr is the terminal; nothing to do if it fails
		if len(args) == 0 {
			return exitUsage
		}
		return exitOK
	}
	e := newEnv(getenv, stdout, stderr)
	defer e.close()
	if e.settingsErr != nil {
		return exitCode(&configError{e.settingsErr}, stderr)
	}
	cmd, ok := newCommand(args[0], e)
	if !ok {
		fmt.Fprint(stderr, unknownCommand(args[0]))
		return exitUsage
	}
	return exitCode(cmd.Run(ctx, args[1:]), stderr)
}

// exitCode prints err the way a person at a terminal needs it.
func exitCode(err error, stderr io.Writer) int {
	if err == nil {
		return exitOK
	}
	var usageErr *usageError
	if errors.As(err, &usageErr) {
		if !errors.Is(err, errHelp) {
			fmt.Fprintf(stderr, "starter %s: %v\n", usageErr.command, usageErr.err)
		}
		fmt.Fprint(stderr, usageErr.usage)
		if errors.Is(err, errHelp) {
			return exitOK
		}
		return exitUsage
	}
	fmt.Fprintln(stderr, err)
	var ended *runEndedError
	if errors.As(err, &ended) {
		return ended.code
	}
	var cfgErr *configError
	if errors.As(err, &cfgErr) {
		return exitUsage
	}
	return exitError
}
