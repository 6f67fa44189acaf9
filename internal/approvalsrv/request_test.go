package approvalsrv

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/runclient"
)

func TestPathIDRulesAcceptTheIDsRunsHave(t *testing.T) {
	for _, id := range []string{"run-1", "review-acme-widgets-1-0123456789ab", "fault-approval-burst", "a.b_c:d", "aAzZ09", strings.Repeat("r", maxPathIDLength)} {
		require.NoError(t, checkPathID("runId", id), id)
	}
	for _, id := range []string{"", "run/1", "run`1", "run@1", "run{1", "run[1", "run 1", strings.Repeat("r", maxPathIDLength+1)} {
		require.Error(t, checkPathID("runId", id), id)
	}
	for _, id := range []string{"act-be23a84bb17f4733", "act-step-4", "act-1", "act-aAzZ09_-", "act-" + strings.Repeat("f", 60)} {
		require.NoError(t, checkActionID(id), id)
	}
	for _, id := range []string{"", "act-", "act-a'b", "act-a b", "act-1.2", "act-1:2", "step-4", "ACT-1", "act-" + strings.Repeat("f", 61)} {
		require.Error(t, checkActionID(id), id)
	}
}

// fuzzParse fuzzes a parser from seeds: any body is either refused with a
// *invalidRequest and the zero request, or yields a request that keeps every rule
// valid checks.
func fuzzParse[T any](f *testing.F, parse func([]byte) (T, error), valid func(*testing.T, T), seeds ...string) {
	for _, seed := range seeds {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		req, err := parse(body)
		if err != nil {
			var bad *invalidRequest
			require.True(t, errors.As(err, &bad), "unexpected error type %T: %v", err, err)
			var zero T
			require.Equal(t, zero, req)
			return
		}
		valid(t, req)
	})
}

// FuzzParseDecision: any body is either refused with a *invalidRequest or
// yields a decision every later check can rely on.
func FuzzParseDecision(f *testing.F) {
	fuzzParse(f, parseDecision, func(t *testing.T, req Decision) {
		require.Contains(t, []string{"approve", "reject"}, req.Decision)
		require.NotEmpty(t, strings.TrimSpace(req.Approver))
		require.LessOrEqual(t, len(req.Approver), maxNameLength)
		require.False(t, hasControl(req.Approver))
		require.NotEmpty(t, strings.TrimSpace(req.RequestID))
		require.LessOrEqual(t, len(req.Reason), maxReasonLength)
		if req.Decision == "reject" {
			require.NotEmpty(t, strings.TrimSpace(req.Reason))
		}
	}, `{"decision":"approve","approver":"alice","requestId":"r-1"}`,
		`{"decision":"reject","approver":"bob","reason":"no","requestId":"r-2"}`)
}

// FuzzParseStart: any body is either refused with a *invalidRequest or yields a
// start whose every field keeps its rule.
func FuzzParseStart(f *testing.F) {
	fuzzParse(f, parseStart, func(t *testing.T, req startRequest) {
		require.True(t, runclient.ValidRepo(req.Repo))
		require.Positive(t, req.PullNumber)
		require.True(t, req.Agent == "" || api.ValidAgentName(req.Agent))
		require.LessOrEqual(t, len(req.Approvers), maxApprovers)
		for _, a := range req.Approvers {
			require.True(t, runclient.ValidLogin(a))
		}
		require.LessOrEqual(t, len(req.Goal), maxGoalLength)
		require.False(t, hasControl(req.Goal))
		require.NotEmpty(t, strings.TrimSpace(req.UserID))
		require.False(t, hasControl(req.UserID))
	}, `{"repo":"acme/widgets","pullNumber":7,"userId":"carol"}`,
		`{"repo":"acme/widgets","pullNumber":7,"goal":"g","agent":"triage","approvers":["alice"],"userId":"carol"}`)
}

// FuzzParseResolve: any body is either refused with a *invalidRequest or yields a
// resolve the run can take.
func FuzzParseResolve(f *testing.F) {
	fuzzParse(f, parseResolve, func(t *testing.T, req resolveRequest) {
		require.Contains(t, []string{api.ResolveRetry, api.ResolveMarkSucceeded, api.ResolveAbandon}, req.Decision)
		require.NotEmpty(t, strings.TrimSpace(req.By))
		require.False(t, hasControl(req.By))
		require.NotEmpty(t, strings.TrimSpace(req.RequestID))
		require.False(t, hasControl(req.ExternalResourceID))
	}, `{"decision":"retry","by":"ops","requestId":"r-1"}`,
		`{"decision":"mark_succeeded","by":"ops","externalResourceId":"7","requestId":"r-2"}`)
}

// FuzzParseBatch: any body is either refused with a *invalidRequest or yields a
// batch of distinct actions, each bound to the input its approver saw.
func FuzzParseBatch(f *testing.F) {
	hash := strings.Repeat("a", argsHashLength)
	fuzzParse(f, parseBatch, func(t *testing.T, req Batch) {
		require.NoError(t, req.Decision.Validate())
		require.Empty(t, req.ArgsHash)
		require.GreaterOrEqual(t, len(req.Actions), 2)
		require.LessOrEqual(t, len(req.Actions), api.MaxBatch)
		seen := map[string]bool{}
		for _, ref := range req.Actions {
			require.NoError(t, checkActionID(ref.ActionID))
			require.NoError(t, checkArgsHash("argsHash", ref.ArgsHash))
			require.False(t, seen[ref.ActionID], ref.ActionID)
			seen[ref.ActionID] = true
		}
	}, `{"decision":"approve","approver":"alice","requestId":"r-1","actions":[{"actionId":"act-1","argsHash":"`+hash+`"},{"actionId":"act-2","argsHash":"`+hash+`"}]}`,
		`{"decision":"approve","approver":"alice","requestId":"r-1","actions":[{"actionId":"act-1","argsHash":"`+hash+`"},{"actionId":"act-1","argsHash":"`+hash+`"}]}`)
}

func TestIdempotencyKeyIsOnePrintableASCIIValueOfAtMost255(t *testing.T) {
	for _, ok := range [][]string{{"k"}, {strings.Repeat("k", maxIdempotencyKeyLength)}, {`a b/c:"d"~`}} {
		key, err := checkIdempotencyKey(ok)
		require.NoError(t, err, ok)
		require.Equal(t, ok[0], key)
	}
	for _, bad := range [][]string{nil, {""}, {"a", "b"}, {strings.Repeat("k", maxIdempotencyKeyLength+1)}, {"clé"}, {"a\tb"}, {"a\x7f"}, {"a\x00"}} {
		_, err := checkIdempotencyKey(bad)
		require.Error(t, err, bad)
	}
}

func TestDecisionAndResolveRefuseWhatTheyDoNotTakeNamingWhatTheyDo(t *testing.T) {
	cases := map[string]struct {
		parse func([]byte) error
		body  string
		want  string
	}{
		"decision missing":      {decisionError, `{"approver":"alice","requestId":"r-1"}`, "missing field: decision"},
		"decision unknown":      {decisionError, `{"decision":"retry","approver":"alice","requestId":"r-1"}`, `unknown decision "retry": want approve, reject or respond`},
		"decision no approver":  {decisionError, `{"decision":"approve","requestId":"r-1"}`, "missing field: approver"},
		"decision no requestId": {decisionError, `{"decision":"approve","approver":"alice"}`, "missing field: requestId"},
		"resolve missing":       {resolveError, `{"by":"ops","requestId":"r-1"}`, "missing field: decision"},
		"resolve unknown":       {resolveError, `{"decision":"approve","by":"ops","requestId":"r-1"}`, `unknown decision "approve": want retry, mark_succeeded or abandon`},
		"resolve no by":         {resolveError, `{"decision":"retry","requestId":"r-1"}`, "missing field: by"},
		"resolve no requestId":  {resolveError, `{"decision":"retry","by":"ops"}`, "missing field: requestId"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			err := c.parse([]byte(c.body))

			var bad *invalidRequest
			require.ErrorAs(t, err, &bad)
			require.Equal(t, c.want, bad.Problem)
		})
	}
}

func decisionError(body []byte) error { _, err := parseDecision(body); return err }

func resolveError(body []byte) error { _, err := parseResolve(body); return err }
