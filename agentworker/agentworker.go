// Package agentworker is the agentrun worker as a library: the command in
// worker/ is Main with the built-in agents, and a worker with tools and
// agents of its own is Main with them added (docs/tools.md):
//
//	func main() {
//		agentworker.Main(agentworker.Options{Program: "chatworker", Extensions: []agents.Extension{{
//			Tools:  []agents.ExtraTool{{Tool: chat.SendMessage{}, Gate: tools.AlwaysAsk}},
//			Agents: []tools.Agent{{Name: "announce", TargetKind: "chat_channel", Tools: []tools.AgentTool{{Name: "send_message"}}}},
//		}}})
//	}
//
// Such a worker is the real one in everything else: its settings are read
// once from the environment and listed by --help (TLS, mTLS and API keys of
// the Temporal CLI's envconfig, payload encryption, GitHub, the model,
// metrics and traces, Worker Versioning, AGENT_TOOLS_FILE), it adds the
// search attributes the namespace lacks, polls as a Worker Deployment
// Version when told to, answers `replay-check`, and on SIGINT or SIGTERM
// lets the activities in flight finish for AGENT_STOP_TIMEOUT. A bad
// setting stops it with exit code 2, naming the variable.
package agentworker

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"syscall"

	"github.com/agentrun/agentrun/agents"
	"github.com/agentrun/agentrun/github"
	wiring "github.com/agentrun/agentrun/internal/agentworker"
	"github.com/agentrun/agentrun/internal/config"
	"github.com/agentrun/agentrun/internal/startup"
	"github.com/agentrun/agentrun/model"
)

// DefaultProgram names the worker when Options.Program does not.
const DefaultProgram = "worker"

// ReplayCheckCommand is the subcommand an operator runs before a build takes
// over open runs: `worker replay-check [--sample N] [--from-build ID]`.
const ReplayCheckCommand = "replay-check"

// Options say what a worker serves besides the built-in tools and agents,
// and, for a test that runs it in process, where it reads and writes. Every
// worker of a task queue must be given the same tools and agents: the
// registry is part of the workflow's determinism.
type Options struct {
	// Program names the command in --help and in its errors; default
	// "worker".
	Program string
	// Extensions are the worker's own tools, agents and grants, added after
	// the built-in ones (agents.BuiltinWith) and those of AGENT_TOOLS_FILE.
	// A worker with no GitHub variable serves them alone (agents.WithoutGitHub).
	Extensions []agents.Extension
	// Settings are the variables Extend reads, listed by --help with the
	// worker's own and read once with them.
	Settings []Setting
	// Extend, when set, makes more extensions once the worker knows its
	// settings and its GitHub identity: for a tool that needs the GitHub
	// access or a variable of Settings. It must make no request; its error
	// stops the worker with exit code 2, as a bad variable does.
	Extend func(Host) ([]agents.Extension, error)
	// Model, when set, is the model of the worker's runs, given the one
	// MODEL_PROVIDER chose (the offline reviewer by default) to hand the
	// calls it does not drive to (see model/scripted).
	Model func(provider model.Model) model.Model

	// Args are the command line after the program's name; Main passes
	// os.Args[1:]. Empty serves; "--help" lists the settings;
	// ReplayCheckCommand runs the replay check.
	Args []string
	// Getenv reads the environment; nil reads the process's. Main passes
	// the environment it took the secrets out of.
	Getenv func(string) string
	// Stdout and Stderr default to the process's. The log goes to Stderr.
	Stdout, Stderr io.Writer
}

// Setting is one variable of the worker's own tools.
type Setting struct {
	Name        string
	Default     string
	Description string
	// Secret keeps the value out of every message and out of the
	// environment of the worker's children, and lets it come from the file
	// Name+"_FILE" names.
	Secret bool
	// Required refuses to start while the variable is unset.
	Required bool
}

// Host is what Options.Extend builds its tools from.
type Host struct {
	// Getenv answers for the variables of Options.Settings (an unset one
	// is its Default) and nothing else.
	Getenv func(name string) string
	// GitHub is the worker's GitHub access, its bot login known; nil when
	// no GitHub variable is set.
	GitHub *github.Access
}

// Main is a worker process: it runs Run over the process's command line and
// environment until SIGINT or SIGTERM, and exits with ExitCode. The
// environment's secrets are removed from it first, and the process is made
// non-dumpable, so that a child the worker starts (a stdio MCP server) can
// read neither.
func Main(opts Options) {
	opts.Program = cmp.Or(opts.Program, DefaultProgram)
	stderr := cmp.Or[io.Writer](opts.Stderr, os.Stderr)
	if err := startup.MakeNonDumpable(); err != nil {
		os.Exit(report(opts.Program, err, stderr))
	}
	table, _ := opts.settings()
	getenv, err := table.TakeEnvironment()
	if err != nil {
		os.Exit(report(opts.Program, err, stderr))
	}
	opts.Args, opts.Getenv = os.Args[1:], getenv
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err = Run(ctx, opts)
	stop()
	os.Exit(report(opts.Program, err, stderr))
}

// Run is the worker over opts.Args until ctx ends: it serves, lists its
// settings (--help), or runs the replay check (ReplayCheckCommand). Its
// error tells the exit code (ExitCode).
func Run(ctx context.Context, opts Options) error {
	opts.Program = cmp.Or(opts.Program, DefaultProgram)
	if opts.Getenv == nil {
		opts.Getenv = config.Getenv
	}
	opts.Stdout = cmp.Or[io.Writer](opts.Stdout, os.Stdout)
	opts.Stderr = cmp.Or[io.Writer](opts.Stderr, os.Stderr)
	table, own := opts.settings()
	if table.PrintHelp(opts.Args, opts.Stdout) {
		return nil
	}
	if len(opts.Args) > 0 && opts.Args[0] == ReplayCheckCommand {
		return replayCheck(ctx, opts, table, own)
	}
	if len(opts.Args) > 0 {
		return &startup.ConfigError{Err: fmt.Errorf("%s takes no arguments but %s and --help (have %q); its settings are environment variables",
			opts.Program, ReplayCheckCommand, opts.Args)}
	}
	return serve(ctx, opts, table, own)
}

// ExitCode is 0 for a nil error of Run, 2 for a configuration it refused
// (a bad or missing variable or argument), and 1 otherwise.
func ExitCode(err error) int { return startup.ExitCode(err) }

// report prints err after the program's name and returns its exit code.
func report(program string, err error, stderr io.Writer) int {
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", program, err)
	}
	return ExitCode(err)
}

// ownValues are the values of Options.Settings, filled as the table is read.
type ownValues map[string]string

// settings is the worker's table with opts.Settings after its own, and the
// map reading it fills with theirs.
func (opts Options) settings() (config.Table[wiring.Config], ownValues) {
	table := wiring.Settings()
	table.Program = opts.Program
	own := ownValues{}
	for _, s := range opts.Settings {
		setting := config.Setting[wiring.Config]{Name: s.Name, Default: s.Default, Description: s.Description, Secret: s.Secret,
			Parse: func(_ *wiring.Config, v string) error { own[s.Name] = v; return nil }}
		if s.Required {
			setting.Required = config.Always[wiring.Config]
		}
		table.Settings = append(slices.Clip(table.Settings), setting)
	}
	return table, own
}

// extensions are opts.Extensions and what opts.Extend makes of the host.
func (opts Options) extensions(own ownValues, gh *github.Access) ([]agents.Extension, error) {
	exts := slices.Clip(opts.Extensions)
	if opts.Extend == nil {
		return exts, nil
	}
	more, err := opts.Extend(Host{Getenv: func(name string) string { return own[name] }, GitHub: gh})
	if err != nil {
		return nil, &startup.ConfigError{Err: fmt.Errorf("%s's own tools: %w", opts.Program, err)}
	}
	return append(exts, more...), nil
}
