package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/runview"
	"github.com/agentrun/agentrun/runclient"
)

const listSynopsis = "list [--status STATUS] [--agent NAME] [--json]"

// listCommand lists runs, newest first; with --status waiting_for_user it
// lists the approval inbox instead: one row per action waiting for a person.
type listCommand struct {
	env    *env
	status string
	agent  string
	json   bool
}

func (c *listCommand) flags() *flag.FlagSet {
	fs := newFlagSet("list")
	fs.StringVar(&c.status, "status", "", "only runs in this `STATUS`: "+joinStatuses()+"; waiting_for_user lists one row per action waiting for approval")
	fs.StringVar(&c.agent, "agent", "", "only runs of the agent `NAME` (pr-review, triage, or your own)")
	fs.BoolVar(&c.json, "json", false, "print JSON")
	return fs
}

func (c *listCommand) Run(ctx context.Context, args []string) error {
	fs := c.flags()
	if err := parseNoArgs(fs, listSynopsis, args); err != nil {
		return err
	}
	if c.status != "" && !api.RunStatus(c.status).Known() {
		return usageErr(fs, listSynopsis, fmt.Errorf("--status %q: want one of %s", c.status, joinStatuses()))
	}
	if c.agent != "" && !api.ValidAgentName(c.agent) {
		return usageErr(fs, listSynopsis, fmt.Errorf("--agent %q is not an agent name", c.agent))
	}
	if c.agent != "" && c.status == string(api.RunWaitingForUser) {
		return usageErr(fs, listSynopsis, errors.New("--agent does not narrow the approval inbox (--status waiting_for_user); leave one out"))
	}
	rc, err := c.env.runClient(ctx)
	if err != nil {
		return err
	}
	if c.status == string(api.RunWaitingForUser) {
		return c.showApprovalInbox(ctx, rc)
	}
	// Both have been checked: runclient would refuse them too, but later.
	rows, err := rc.List(ctx, runclient.ListFilter{Status: api.RunStatus(c.status), Agent: c.agent})
	if err != nil {
		return err
	}
	if c.json {
		return runview.JSON(c.env.stdout, rows)
	}
	return runview.List(c.env.stdout, rows)
}

// showApprovalInbox lists what the approval server's GET /v1/approvals
// lists, through the same function, so that a person at a terminal and one
// at the inbox page see the same actions waiting.
func (c *listCommand) showApprovalInbox(ctx context.Context, rc *runclient.Client) error {
	inbox, err := rc.ListWaiting(ctx)
	if err != nil {
		return fmt.Errorf("list pending approvals: %w", err)
	}
	if c.json {
		return runview.JSON(c.env.stdout, inbox)
	}
	return runview.ApprovalInbox(c.env.stdout, inbox)
}

func joinStatuses() string {
	statuses := api.RunStatuses()
	names := make([]string, len(statuses))
	for i, s := range statuses {
		names[i] = string(s)
	}
	return strings.Join(names, ", ")
}
