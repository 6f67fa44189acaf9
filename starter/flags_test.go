package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/runclient"
)

// Every case fails before dialling, so no server is needed; a closed
// address makes sure a case that wrongly dials fails with exit 1, not 2.
var noServer = map[string]string{"TEMPORAL_ADDRESS": "127.0.0.1:1"}

func TestBadCommandLinesExit2WithUsage(t *testing.T) {
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"no command", nil, "usage: starter <command>"},
		{"unknown command", []string{"launch"}, `unknown command "launch"`},
		{"start without repo", []string{"start", "--pr", "1"}, "--repo is required"},
		{"start with repo lacking owner", []string{"start", "--repo", "widgets", "--pr", "1"}, "want OWNER/NAME"},
		{"start with repo of three parts", []string{"start", "--repo", "a/b/c", "--pr", "1"}, "want OWNER/NAME"},
		{"start with repo with spaces", []string{"start", "--repo", "acme/wid gets", "--pr", "1"}, "want OWNER/NAME"},
		{"start without pr", []string{"start", "--repo", "acme/widgets"}, "--pr 0: want a pull request number above 0"},
		{"start with negative pr", []string{"start", "--repo", "acme/widgets", "--pr", "-3"}, "--pr -3"},
		{"start with non-numeric pr", []string{"start", "--repo", "acme/widgets", "--pr", "one"}, "invalid value \"one\" for flag -pr"},
		{"start with an upper-case agent", []string{"start", "--repo", "acme/widgets", "--pr", "1", "--agent", "PR-Review"}, `--agent "PR-Review": want lower case`},
		{"start with an agent with a space", []string{"start", "--repo", "acme/widgets", "--pr", "1", "--agent", "pr review"}, `--agent "pr review"`},
		{"start with an agent with a quote", []string{"start", "--repo", "acme/widgets", "--pr", "1", "--agent", "x' OR 1=1"}, `--agent "x' OR 1=1"`},
		{"start with an empty agent", []string{"start", "--repo", "acme/widgets", "--pr", "1", "--agent", ""}, `--agent ""`},
		{"start with zero timeout", []string{"start", "--repo", "acme/widgets", "--pr", "1", "--approval-timeout", "0s"}, "--approval-timeout 0s"},
		{"start with negative timeout", []string{"start", "--repo", "acme/widgets", "--pr", "1", "--approval-timeout", "-1h"}, "--approval-timeout -1h0m0s"},
		{"start with zero max steps", []string{"start", "--repo", "acme/widgets", "--pr", "1", "--max-steps", "0"}, "--max-steps 0"},
		{"start with empty approver", []string{"start", "--repo", "acme/widgets", "--pr", "1", "--approver", ""}, "empty value"},
		{"start with stray argument", []string{"start", "--repo", "acme/widgets", "--pr", "1", "now"}, "unexpected arguments: now"},
		{"start with unknown flag", []string{"start", "--repo", "acme/widgets", "--pr", "1", "--fast"}, "flag provided but not defined: -fast"},
		{"status without run", []string{"status"}, "missing RUN_ID"},
		{"status with two runs", []string{"status", "a", "b"}, "unexpected arguments after the run ID: b"},
		{"events with negative since", []string{"events", "r1", "--since", "-1"}, "--since -1"},
		{"approve without action", []string{"approve", "r1", "--as", "alice"}, "--action is required"},
		{"approve without login", []string{"approve", "r1", "--action", "a1"}, "--as is required"},
		{"approve all naming an action", []string{"approve", "r1", "--all", "--action", "a1", "--as", "alice"}, "--all approves every waiting action; leave out --action"},
		{"approve all without login", []string{"approve", "r1", "--all"}, "--as is required"},
		{"reject all", []string{"reject", "r1", "--all", "--as", "alice", "--reason", "no"}, "flag provided but not defined: -all"},
		{"reject without reason", []string{"reject", "r1", "--action", "a1", "--as", "alice"}, "--reason is required to reject"},
		{"resolve with unknown decision", []string{"resolve", "r1", "--step", "step-5", "--decision", "ignore", "--as", "ops"}, `--decision "ignore"`},
		{"resolve without step", []string{"resolve", "r1", "--decision", "retry", "--as", "ops"}, "--step is required"},
		{"resolve with external id on retry", []string{"resolve", "r1", "--step", "step-5", "--decision", "retry", "--as", "ops", "--external-id", "7"}, "--external-id goes only with --decision mark_succeeded"},
		{"cancel without login", []string{"cancel", "r1", "--reason", "wrong pull request"}, "--as is required"},
		{"cancel without reason", []string{"cancel", "r1", "--as", "carol"}, "--reason is required: a cancel must say why"},
		{"cancel with an oversized reason", []string{"cancel", "r1", "--as", "carol", "--reason", strings.Repeat("x", 2001)}, "--reason is 2001 bytes; at most 2000"},
		{"cancel without run", []string{"cancel", "--as", "carol", "--reason", "x"}, "missing RUN_ID"},
		{"list with stray argument", []string{"list", "now"}, "unexpected arguments: now"},
		{"hold naming nothing", []string{"hold", "--as", "ops", "--reason", "loop"}, "a hold names exactly one of an agent, a target or a tool"},
		{"hold naming two things", []string{"hold", "--agent", "pr-review", "--tool", "create_issue_comment", "--as", "ops", "--reason", "loop"}, "exactly one of"},
		{"hold without reason", []string{"hold", "--agent", "pr-review", "--as", "ops"}, "a hold or release says why"},
		{"hold without login", []string{"hold", "--agent", "pr-review", "--reason", "loop"}, "a hold or release names who asks it"},
		{"release without reason", []string{"release", "--agent", "pr-review", "--as", "ops"}, "usage: starter release"},
		{"hold with stray argument", []string{"hold", "pr-review", "--as", "ops", "--reason", "loop"}, "unexpected arguments: pr-review"},
		{"holds with stray argument", []string{"holds", "now"}, "unexpected arguments: now"},
		{"hold on a pull request's URL", []string{"hold", "--target", "https://github.com/acme/widgets/pull/12", "--as", "ops", "--reason", "loop"}, "name a pull request as owner/name#12"},
		{"hold on an agent that cannot be", []string{"hold", "--agent", "PR Review", "--as", "ops", "--reason", "loop"}, "an agent's name is lower case letters, digits and '-'"},
		{"release of a pull request without its number", []string{"release", "--target", "acme/widgets#", "--as", "ops", "--reason", "fixed"}, "after '#' comes a pull request's number"},
		{"hold of everyone's", []string{"hold", "--agent", "pr-review", "--all", "--as", "ops", "--reason", "loop"}, "flag provided but not defined: -all"},
		{"events without run", []string{"events", "--json"}, "missing RUN_ID"},
		{"list with unknown status", []string{"list", "--status", "paused"}, `--status "paused": want one of running, waiting_for_user`},
		{"list with a hostile agent", []string{"list", "--agent", `x" OR AgentRunStatus != "`}, `is not an agent name`},
		{"list of the inbox by agent", []string{"list", "--agent", "triage", "--status", "waiting_for_user"}, "--agent does not narrow the approval inbox"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := starterWith(noServer, tc.args...)

			require.Equal(t, 2, r.code, r.stderr)
			require.Contains(t, r.stderr, "usage: starter")
			require.Contains(t, r.stderr, tc.want)
		})
	}
}

func TestBadTemporalAddressExits2NamingTheVariable(t *testing.T) {
	r := starterWith(map[string]string{"TEMPORAL_ADDRESS": "localhost"}, "status", "r1")

	require.Equal(t, 2, r.code)
	require.Contains(t, r.stderr, "TEMPORAL_ADDRESS")
}

func TestHelpExits0WithUsage(t *testing.T) {
	for _, args := range [][]string{{"-h"}, {"help"}, {"start", "-h"}, {"approve", "--help"}} {
		r := starterWith(noServer, args...)

		require.Equal(t, 0, r.code, args)
		require.Contains(t, r.stderr, "usage: starter", args)
	}
}

func TestFlagsAfterTheRunIDAreParsed(t *testing.T) {
	cmd := &decideCommand{env: newEnv(func(string) string { return "" }, nil, nil), approve: true}

	sig, runID, err := cmd.parse([]string{"r1", "--action", "a1", "--as", "alice", "--reason", "fine"})

	require.NoError(t, err)
	require.Equal(t, "r1", runID)
	require.Equal(t, "a1", sig.ActionID)
	require.Equal(t, "approve", sig.Decision)
	require.Equal(t, "alice", sig.Approver)
	require.Equal(t, "fine", sig.Reason)
	require.NotEmpty(t, sig.RequestID)
}

func TestRunIDIsDerivedFromTheIdempotencyKey(t *testing.T) {
	parse := func(args ...string) runclient.StartRequest {
		t.Helper()
		cmd := &startCommand{env: newEnv(func(k string) string { return map[string]string{"USER": "carol"}[k] }, nil, nil)}
		req, err := cmd.parse(args)
		require.NoError(t, err)
		return req
	}

	plain := parse("--repo", "Acme/Widgets", "--pr", "7")
	same := parse("--repo", "Acme/Widgets", "--pr", "7")
	otherUser := parse("--repo", "Acme/Widgets", "--pr", "7", "--user", "dave")
	keyed := parse("--repo", "Acme/Widgets", "--pr", "7", "--idempotency-key", "ticket-42")
	keyedAgain := parse("--repo", "Acme/Widgets", "--pr", "7", "--idempotency-key", "ticket-42", "--user", "dave")

	require.Regexp(t, `^review-acme-widgets-7-[0-9a-f]{12}$`, plain.RunID)
	require.Equal(t, plain.RunID, same.RunID)
	require.NotEqual(t, plain.RunID, otherUser.RunID)
	require.Equal(t, keyed.RunID, keyedAgain.RunID)
	require.Equal(t, plain.RunID, plain.Input.ConversationID)
	require.Equal(t, "carol", plain.Input.UserID)
	require.Equal(t, "agent-runs", plain.TaskQueue)
}

// The default agent keeps the run IDs of before agents had names, so that a
// repeated start after an upgrade finds its run; another agent is another run.
func TestTheAgentIsPartOfTheRequestAndOnlyANamedOneChangesTheDefaultKey(t *testing.T) {
	parse := func(args ...string) runclient.StartRequest {
		t.Helper()
		cmd := &startCommand{env: newEnv(func(k string) string { return map[string]string{"USER": "carol"}[k] }, nil, nil)}
		req, err := cmd.parse(append([]string{"--repo", "acme/widgets", "--pr", "7"}, args...))
		require.NoError(t, err)
		return req
	}
	plain, named, triage := parse(), parse("--agent", "pr-review"), parse("--agent", "triage")

	require.Equal(t, runclient.RunID("acme/widgets", 7, "repo=acme/widgets\npr=7\ngoal=\nuser=carol"), plain.RunID, "the key of before agents")
	require.Equal(t, plain.RunID, named.RunID)
	require.NotEqual(t, plain.RunID, triage.RunID)
	require.Equal(t, "pr-review", plain.Input.Agent)
	require.Equal(t, "triage", triage.Input.Agent)
	require.Equal(t, runclient.RequestHash(plain.Input), plain.RequestHash, "the starter's keys are guarded like the API's")

	keyed, keyedTriage := parse("--idempotency-key", "k"), parse("--idempotency-key", "k", "--agent", "triage")
	require.Regexp(t, `^review-acme-widgets-7-[0-9a-f]{12}$`, keyed.RunID)
	require.Regexp(t, `^triage-acme-widgets-7-[0-9a-f]{12}$`, keyedTriage.RunID, "a key the caller chose names its agent too")
	require.Equal(t, keyed.RunID, keyedTriage.FormerRunID,
		"a keyed start asks first for the run earlier builds gave the key, whatever the agent, so that its reuse for another agent meets it")
	require.NotEqual(t, keyed.RequestHash, keyedTriage.RequestHash, "the two requests differ, so the second meets the first run and is refused")
	require.Regexp(t, `^triage-acme-widgets-7-[0-9a-f]{12}$`, triage.RunID, "a derived key's run names its agent")
}
