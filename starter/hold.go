package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/runview"
)

const (
	holdSynopsis    = "hold --agent NAME | --target REF | --tool NAME --reason TEXT --as LOGIN"
	releaseSynopsis = "release --agent NAME | --target REF | --tool NAME [--all] --reason TEXT --as LOGIN"
	holdsSynopsis   = "holds [--json] [--task-queue QUEUE]"
)

// holdCommand places (or, with release, releases) an operator's hold: the
// stop switch for an agent, a target or a tool across runs. It updates the
// holds workflow and prints its answer: a worker of the queue must answer,
// and a hold or release it did not apply exits 1.
type holdCommand struct {
	env     *env
	release bool

	selector  api.HoldSelector
	as        string
	reason    string
	all       bool
	taskQueue string
}

func (c *holdCommand) name() string {
	if c.release {
		return "release"
	}
	return "hold"
}

func (c *holdCommand) synopsis() string {
	if c.release {
		return releaseSynopsis
	}
	return holdSynopsis
}

func (c *holdCommand) flags() *flag.FlagSet {
	fs := newFlagSet(c.name())
	fs.StringVar(&c.selector.Agent, "agent", "", "every run of the agent `NAME` (pr-review, triage, or your own)")
	fs.StringVar(&c.selector.Target, "target", "", "every run on the target `REF`: acme/widgets#12, or acme/widgets for all of a repository")
	fs.StringVar(&c.selector.Tool, "tool", "", "every action of the tool `NAME` (create_issue_comment, …)")
	fs.StringVar(&c.as, "as", "", "your `LOGIN`, for the audit")
	fs.StringVar(&c.reason, "reason", "", "why (`TEXT`, required): matching runs show it as \"held by ops: TEXT\"")
	fs.StringVar(&c.taskQueue, "task-queue", c.env.settings.taskQueue, "the `QUEUE` the workers poll, where the holds workflow runs")
	if c.release {
		fs.BoolVar(&c.all, "all", false, "release every hold on it, others' too (without it, only yours)")
	}
	return fs
}

func (c *holdCommand) Run(ctx context.Context, args []string) error {
	fs := c.flags()
	if err := parseNoArgs(fs, c.synopsis(), args); err != nil {
		return err
	}
	sig := api.HoldSignal{
		Selector: c.selector, By: strings.TrimSpace(c.as), Reason: strings.TrimSpace(c.reason), Channel: channelCLI,
		All: c.all, RequestID: newRequestID(),
	}
	if strings.TrimSpace(c.taskQueue) == "" {
		return usageErr(fs, c.synopsis(), errors.New("--task-queue is required"))
	}
	if err := sig.Validate(); err != nil {
		return usageErr(fs, c.synopsis(), err)
	}
	rc, err := c.env.runClient(ctx)
	if err != nil {
		return err
	}
	var answer api.HoldAnswer
	if c.release {
		answer, err = rc.Release(ctx, c.taskQueue, sig)
	} else {
		answer, err = rc.Hold(ctx, c.taskQueue, sig)
	}
	if err != nil {
		return err
	}
	line, err := holdAnswerLine(answer)
	if err != nil {
		return err
	}
	fmt.Fprintln(c.env.stdout, line)
	return nil
}

// holdAnswerLine is what an operator is told of a hold or release: what it
// did, or, as an error, why it did nothing.
func holdAnswerLine(a api.HoldAnswer) (string, error) {
	still := ""
	if len(a.Others) > 0 {
		names := make([]string, len(a.Others))
		for i, o := range a.Others {
			names[i] = o.By
		}
		still = "; also held by " + strings.Join(names, ", ")
	}
	switch a.Outcome {
	case api.HoldOutcomePlaced, api.HoldOutcomeReplaced:
		line := "held " + a.Selector.String() + ": every matching run stops before its next side effect; an action already sent finishes"
		if a.Outcome == api.HoldOutcomeReplaced {
			line += " (" + a.Note + ")"
		}
		return line + still, nil
	case api.HoldOutcomeReleased:
		if len(a.Others) > 0 {
			return "released your hold on " + a.Selector.String() + still + ": the runs it matches stay held until those are released", nil
		}
		return "released " + a.Selector.String() + ": the runs it held go on, each sending its action once, unless another hold still matches them (starter holds)", nil
	default: // refused, or nothing to release: the note says why
		return "", errors.New(a.Note)
	}
}

// holdsCommand lists the active holds and the audit of the latest changes.
type holdsCommand struct {
	env       *env
	json      bool
	taskQueue string
}

func (c *holdsCommand) Run(ctx context.Context, args []string) error {
	fs := newFlagSet("holds")
	fs.BoolVar(&c.json, "json", false, "print JSON")
	fs.StringVar(&c.taskQueue, "task-queue", c.env.settings.taskQueue, "the `QUEUE` the workers poll, where the holds workflow runs")
	if err := parseNoArgs(fs, holdsSynopsis, args); err != nil {
		return err
	}
	rc, err := c.env.runClient(ctx)
	if err != nil {
		return err
	}
	view, err := rc.Holds(ctx, c.taskQueue)
	if err != nil {
		return err
	}
	if c.json {
		enc := json.NewEncoder(c.env.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(view)
	}
	return runview.Holds(c.env.stdout, view)
}
