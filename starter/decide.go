package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/runclient"
)

const (
	approveSynopsis = "approve RUN_ID (--action ID | --all) --as LOGIN [--reason TEXT] [--edit-file FILE]"
	rejectSynopsis  = "reject RUN_ID --action ID --as LOGIN --reason TEXT"
	respondSynopsis = "respond RUN_ID --action ID --as LOGIN --feedback TEXT"
)

// decideCommand approves, rejects or responds to a run's pending action.
type decideCommand struct {
	env     *env
	approve bool
	// respond answers with feedback instead of a decision.
	respond bool

	actionID string
	as       string
	reason   string
	// all approves every waiting action of the run (approve only).
	all bool
	// editFile holds the action's arguments as edited (approve only).
	editFile string
}

func (c *decideCommand) synopsis() string {
	switch {
	case c.approve:
		return approveSynopsis
	case c.respond:
		return respondSynopsis
	}
	return rejectSynopsis
}

func (c *decideCommand) flags() *flag.FlagSet {
	fs := newFlagSet("reject")
	switch {
	case c.approve:
		fs = newFlagSet("approve")
	case c.respond:
		fs = newFlagSet("respond")
	}
	fs.StringVar(&c.actionID, "action", "", "the pending action's `ID` (see `starter status`)")
	fs.StringVar(&c.as, "as", "", "your GitHub `LOGIN`")
	if c.respond {
		fs.StringVar(&c.reason, "feedback", "", "what the agent should change; it may propose again")
		return fs
	}
	fs.StringVar(&c.reason, "reason", "", "why (required to reject)")
	if c.approve {
		fs.BoolVar(&c.all, "all", false, "approve every waiting action of the run: as one batch when its agent takes batches, else one by one")
		fs.StringVar(&c.editFile, "edit-file", "", "approve the action with its arguments as this `FILE` holds them (a JSON object; see the action's args in `starter status --json`)")
	}
	return fs
}

func (c *decideCommand) Run(ctx context.Context, args []string) error {
	sig, runID, err := c.parse(args)
	if err != nil {
		return err
	}
	if c.all {
		return c.approveAll(ctx, runID, sig)
	}
	send := func(ctx context.Context, rc *runclient.Client, runID string, reach runclient.Reach) error {
		if len(sig.Args) > 0 {
			hash, err := editableVersion(reach.Snapshot, runID, sig.ActionID)
			if err != nil {
				return err
			}
			sig.ArgsHash = hash
		}
		return rc.Decide(ctx, runID, sig)
	}
	return signalOpenRun(ctx, c.env, runID, send, func(ev api.Event) bool {
		return ev.Type == api.EventActionState
	})
}

func (c *decideCommand) parse(args []string) (api.ApprovalSignal, string, error) {
	fs := c.flags()
	runID, err := parseRunID(fs, c.synopsis(), args)
	if err != nil {
		return api.ApprovalSignal{}, "", err
	}
	switch {
	case c.all && strings.TrimSpace(c.actionID) != "":
		err = errors.New("--all approves every waiting action; leave out --action")
	case !c.all && strings.TrimSpace(c.actionID) == "":
		err = errors.New("--action is required")
	case strings.TrimSpace(c.as) == "":
		err = errors.New("--as is required")
	case c.respond && strings.TrimSpace(c.reason) == "":
		err = errors.New("--feedback is required to respond")
	case c.respond && len(c.reason) > api.MaxFeedbackBytes:
		err = fmt.Errorf("--feedback is %d bytes; at most %d", len(c.reason), api.MaxFeedbackBytes)
	case !c.approve && !c.respond && strings.TrimSpace(c.reason) == "":
		err = errors.New("--reason is required to reject")
	case c.all && c.editFile != "":
		err = errors.New("--edit-file edits one action; leave out --all")
	}
	if err != nil {
		return api.ApprovalSignal{}, "", usageErr(fs, c.synopsis(), err)
	}
	var edited json.RawMessage
	if c.editFile != "" {
		if edited, err = readEditFile(c.editFile); err != nil {
			return api.ApprovalSignal{}, "", err
		}
	}
	decision := api.DecisionReject
	switch {
	case c.approve:
		decision = api.DecisionApprove
	case c.respond:
		decision = api.DecisionRespond
	}
	return api.ApprovalSignal{
		ActionID:  c.actionID,
		Decision:  decision,
		Approver:  c.as,
		Reason:    c.reason,
		RequestID: newRequestID(),
		Args:      edited,
	}, runID, nil
}

// readEditFile reads the edited arguments: one JSON object of at most
// api.MaxEditArgsBytes, sent as it is written.
func readEditFile(path string) (json.RawMessage, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("--edit-file: %w", err)
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, api.MaxEditArgsBytes+1))
	if err != nil {
		return nil, fmt.Errorf("--edit-file: read %s: %w", path, err)
	}
	if len(raw) > api.MaxEditArgsBytes {
		return nil, fmt.Errorf("--edit-file: %s is over %d bytes; an edit is at most that", path, api.MaxEditArgsBytes)
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		return nil, fmt.Errorf("--edit-file: %s must hold one JSON object, the action's arguments as edited", path)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, raw); err != nil {
		return nil, fmt.Errorf("--edit-file: %s: %w", path, err)
	}
	return compact.Bytes(), nil
}

// editableVersion is the argsHash of the action's version an edit replaces,
// read from the run as the command found it (live, or last known), or why
// the action may not be edited.
func editableVersion(snap api.RunSnapshot, runID, actionID string) (string, error) {
	for _, pa := range snap.Actions {
		if pa.ID != actionID {
			continue
		}
		if !pa.Editable {
			return "", fmt.Errorf("action %s may not be edited: its agent forbids it, or its arguments are too large", actionID)
		}
		return pa.ArgsHash, nil
	}
	return "", fmt.Errorf("run %s has no action %s", runID, actionID)
}

// newRequestID makes each command invocation one request: the run applies a
// requestId at most once.
func newRequestID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+).
	return "cli-" + hex.EncodeToString(b)
}
