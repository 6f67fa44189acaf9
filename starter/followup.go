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

// followUpKeeps are the flags a follow-up takes from its earlier run.
var followUpKeeps = []string{"repo", "pr", "target", "agent", "approver"}

// startFollowUp starts a run in the conversation of c.followUp, or finds
// the one the same follow-up (earlier run, user and goal, or
// --idempotency-key) already started.
func (c *startCommand) startFollowUp(ctx context.Context, fs *flag.FlagSet) error {
	var kept []string
	fs.Visit(func(f *flag.Flag) {
		for _, name := range followUpKeeps {
			if f.Name == name {
				kept = append(kept, "--"+name)
			}
		}
	})
	switch {
	case len(kept) > 0:
		return usageErr(fs, startSynopsis, fmt.Errorf("a follow-up keeps its run's target, agent and approvers: leave out %s", strings.Join(kept, ", ")))
	case strings.TrimSpace(c.goal) == "":
		return usageErr(fs, startSynopsis, errors.New("--follow-up needs --goal: the new message"))
	case strings.TrimSpace(c.user) == "":
		return usageErr(fs, startSynopsis, errors.New("--user is empty"))
	}
	if err := api.CheckGoal(c.goal); err != nil {
		return usageErr(fs, startSynopsis, fmt.Errorf("--goal: %w", err))
	}
	req := runclient.FollowUpRequest{
		Earlier: c.followUp, User: c.user, Goal: c.goal, TaskQueue: c.taskQueue, Key: c.idempotencyKey,
		ApprovalTimeout: c.approvalTimeout, MaxSteps: c.maxSteps,
	}
	if c.callback != "" {
		if c.env.settingsErr != nil {
			return c.env.settingsErr
		}
		if err := c.env.settings.callbackAllowed.Check(c.callback); err != nil {
			return usageErr(fs, startSynopsis, fmt.Errorf("--callback: %w", err))
		}
		req.Callback = &api.Callback{URL: c.callback, Deadline: c.callbackWithin}
	}
	rc, err := c.env.runClient(ctx)
	if err != nil {
		return err
	}
	started, err := rc.FollowUp(ctx, req)
	if err != nil {
		return err
	}
	return c.show(ctx, rc, started)
}

const conversationSynopsis = "conversation ID [--json]"

// conversationCommand lists a conversation's runs in the order they
// started: the first run and its follow-ups.
type conversationCommand struct {
	env  *env
	json bool
}

func (c *conversationCommand) Run(ctx context.Context, args []string) error {
	fs := newFlagSet("conversation")
	fs.BoolVar(&c.json, "json", false, "print JSON")
	id, err := parseRunID(fs, conversationSynopsis, args)
	if err != nil {
		return err
	}
	rc, err := c.env.runClient(ctx)
	if err != nil {
		return err
	}
	// A run's ID names its conversation too: that of its first run.
	if snap, err := rc.Snapshot(ctx, id); err == nil && snap.Run.ConversationID != "" {
		id = snap.Run.ConversationID
	} else if err != nil && !errors.Is(err, runclient.ErrRunNotFound) {
		return err
	}
	rows, err := rc.Conversation(ctx, id)
	if err != nil {
		return err
	}
	if len(rows) == 0 {
		return fmt.Errorf("no run is in conversation %s", id)
	}
	if c.json {
		return runview.JSON(c.env.stdout, rows)
	}
	return runview.List(c.env.stdout, rows)
}
