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
	for _, id := range []string{"run-1", "review-acme-widgets-1-0123456789ab", "fault-approval-burst", "a.b_c:d", "aAzZ09", strings.Repeat("r", MaxPathIDLength)} {
		require.NoError(t, CheckPathID("runId", id), id)
	}
	for _, id := range []string{"", "run/1", "run`1", "run@1", "run{1", "run[1", "run 1", strings.Repeat("r", MaxPathIDLength+1)} {
		require.Error(t, CheckPathID("runId", id), id)
	}
	for _, id := range []string{"act-be23a84bb17f4733", "act-step-4", "act-1", "act-aAzZ09_-", "act-" + strings.Repeat("f", 60)} {
		require.NoError(t, CheckActionID(id), id)
	}
	for _, id := range []string{"", "act-", "act-a'b", "act-a b", "act-1.2", "act-1:2", "step-4", "ACT-1", "act-" + strings.Repeat("f", 61)} {
		require.Error(t, CheckActionID(id), id)
	}
}

// fuzzParse fuzzes a parser from seeds: any body is either refused with a
// *Invalid and the zero request, or yields a request that keeps every rule
// valid checks.
func fuzzParse[T any](f *testing.F, parse func([]byte) (T, error), valid func(*testing.T, T), seeds ...string) {
	for _, seed := range seeds {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		req, err := parse(body)
		if err != nil {
			var bad *Invalid
			require.True(t, errors.As(err, &bad), "unexpected error type %T: %v", err, err)
			var zero T
			require.Equal(t, zero, req)
			return
		}
		valid(t, req)
	})
}

// FuzzParseDecision: any body is either refused with a *Invalid or
// yields a decision every later check can rely on.
func FuzzParseDecision(f *testing.F) {
	fuzzParse(f, ParseDecision, func(t *testing.T, req Decision) {
		require.Contains(t, []string{"approve", "reject"}, req.Decision)
		require.NotEmpty(t, strings.TrimSpace(req.Approver))
		require.LessOrEqual(t, len(req.Approver), maxNameLength)
		require.False(t, HasControl(req.Approver))
		require.NotEmpty(t, strings.TrimSpace(req.RequestID))
		require.LessOrEqual(t, len(req.Reason), MaxReasonLength)
		if req.Decision == "reject" {
			require.NotEmpty(t, strings.TrimSpace(req.Reason))
		}
	}, `{"decision":"approve","approver":"alice","requestId":"r-1"}`,
		`{"decision":"reject","approver":"bob","reason":"no","requestId":"r-2"}`)
}

// FuzzParseStart: any body is either refused with a *Invalid or yields a
// start whose every field keeps its rule.
func FuzzParseStart(f *testing.F) {
	fuzzParse(f, ParseStart, func(t *testing.T, req Start) {
		require.True(t, runclient.ValidRepo(req.Repo))
		require.Positive(t, req.PullNumber)
		require.True(t, req.Agent == "" || api.ValidAgentName(req.Agent))
		require.LessOrEqual(t, len(req.Approvers), MaxApprovers)
		for _, a := range req.Approvers {
			require.True(t, runclient.ValidLogin(a))
		}
		require.LessOrEqual(t, len(req.Goal), MaxGoalLength)
		require.False(t, HasControl(req.Goal))
		require.NotEmpty(t, strings.TrimSpace(req.UserID))
		require.False(t, HasControl(req.UserID))
	}, `{"repo":"acme/widgets","pullNumber":7,"userId":"carol"}`,
		`{"repo":"acme/widgets","pullNumber":7,"goal":"g","agent":"triage","approvers":["alice"],"userId":"carol"}`)
}

// FuzzParseResolve: any body is either refused with a *Invalid or yields a
// resolve the run can take.
func FuzzParseResolve(f *testing.F) {
	fuzzParse(f, ParseResolve, func(t *testing.T, req Resolve) {
		require.Contains(t, []string{api.ResolveRetry, api.ResolveMarkSucceeded, api.ResolveAbandon}, req.Decision)
		require.NotEmpty(t, strings.TrimSpace(req.By))
		require.False(t, HasControl(req.By))
		require.NotEmpty(t, strings.TrimSpace(req.RequestID))
		require.False(t, HasControl(req.ExternalResourceID))
	}, `{"decision":"retry","by":"ops","requestId":"r-1"}`,
		`{"decision":"mark_succeeded","by":"ops","externalResourceId":"7","requestId":"r-2"}`)
}

// FuzzParseBatch: any body is either refused with a *Invalid or yields a
// batch of distinct actions, each bound to the input its approver saw.
func FuzzParseBatch(f *testing.F) {
	hash := strings.Repeat("a", argsHashLength)
	fuzzParse(f, ParseBatch, func(t *testing.T, req Batch) {
		require.NoError(t, req.Decision.Validate())
		require.Empty(t, req.ArgsHash)
		require.GreaterOrEqual(t, len(req.Actions), 2)
		require.LessOrEqual(t, len(req.Actions), api.MaxBatch)
		seen := map[string]bool{}
		for _, ref := range req.Actions {
			require.NoError(t, CheckActionID(ref.ActionID))
			require.NoError(t, CheckArgsHash("argsHash", ref.ArgsHash))
			require.False(t, seen[ref.ActionID], ref.ActionID)
			seen[ref.ActionID] = true
		}
	}, `{"decision":"approve","approver":"alice","requestId":"r-1","actions":[{"actionId":"act-1","argsHash":"`+hash+`"},{"actionId":"act-2","argsHash":"`+hash+`"}]}`,
		`{"decision":"approve","approver":"alice","requestId":"r-1","actions":[{"actionId":"act-1","argsHash":"`+hash+`"},{"actionId":"act-1","argsHash":"`+hash+`"}]}`)
}

func TestIdempotencyKeyIsOnePrintableASCIIValueOfAtMost255(t *testing.T) {
	for _, ok := range [][]string{{"k"}, {strings.Repeat("k", MaxIdempotencyKeyLength)}, {`a b/c:"d"~`}} {
		key, err := CheckIdempotencyKey(ok)
		require.NoError(t, err, ok)
		require.Equal(t, ok[0], key)
	}
	for _, bad := range [][]string{nil, {""}, {"a", "b"}, {strings.Repeat("k", MaxIdempotencyKeyLength+1)}, {"clé"}, {"a\tb"}, {"a\x7f"}, {"a\x00"}} {
		_, err := CheckIdempotencyKey(bad)
		require.Error(t, err, bad)
	}
}

func TestDecisionAndResolveRefuseWhatTheyDoNotTakeNamingWhatTheyDo(t *testing.T) {
	cases := map[string]struct {
		parse func([]byte) error
		body  string
		want  string
	}{
		"decision missing":      {parseDecision, `{"approver":"alice","requestId":"r-1"}`, "missing field: decision"},
		"decision unknown":      {parseDecision, `{"decision":"retry","approver":"alice","requestId":"r-1"}`, `unknown decision "retry": want approve, reject or respond`},
		"decision no approver":  {parseDecision, `{"decision":"approve","requestId":"r-1"}`, "missing field: approver"},
		"decision no requestId": {parseDecision, `{"decision":"approve","approver":"alice"}`, "missing field: requestId"},
		"resolve missing":       {parseResolve, `{"by":"ops","requestId":"r-1"}`, "missing field: decision"},
		"resolve unknown":       {parseResolve, `{"decision":"approve","by":"ops","requestId":"r-1"}`, `unknown decision "approve": want retry, mark_succeeded or abandon`},
		"resolve no by":         {parseResolve, `{"decision":"retry","requestId":"r-1"}`, "missing field: by"},
		"resolve no requestId":  {parseResolve, `{"decision":"retry","by":"ops"}`, "missing field: requestId"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			err := c.parse([]byte(c.body))

			var bad *Invalid
			require.ErrorAs(t, err, &bad)
			require.Equal(t, c.want, bad.Problem)
		})
	}
}

func parseDecision(body []byte) error { _, err := ParseDecision(body); return err }

func parseResolve(body []byte) error { _, err := ParseResolve(body); return err }
