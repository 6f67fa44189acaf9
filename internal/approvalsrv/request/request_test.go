package request

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

// FuzzParseDecision: any body is either refused with a *Invalid or
// yields a decision every later check can rely on.
func FuzzParseDecision(f *testing.F) {
	f.Add([]byte(`{"decision":"approve","approver":"alice","requestId":"r-1"}`))
	f.Add([]byte(`{"decision":"reject","approver":"bob","reason":"no","requestId":"r-2"}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		req, err := ParseDecision(body)
		if err != nil {
			var bad *Invalid
			require.True(t, errors.As(err, &bad), "unexpected error type %T: %v", err, err)
			require.Equal(t, Decision{}, req)
			return
		}
		require.Contains(t, []string{"approve", "reject"}, req.Decision)
		require.NotEmpty(t, strings.TrimSpace(req.Approver))
		require.LessOrEqual(t, len(req.Approver), maxNameLength)
		require.False(t, HasControl(req.Approver))
		require.NotEmpty(t, strings.TrimSpace(req.RequestID))
		require.LessOrEqual(t, len(req.Reason), MaxReasonLength)
		if req.Decision == "reject" {
			require.NotEmpty(t, strings.TrimSpace(req.Reason))
		}
	})
}

// FuzzParseStart: any body is either refused with a *Invalid or yields a
// start whose every field keeps its rule.
func FuzzParseStart(f *testing.F) {
	f.Add([]byte(`{"repo":"acme/widgets","pullNumber":7,"userId":"carol"}`))
	f.Add([]byte(`{"repo":"acme/widgets","pullNumber":7,"goal":"g","agent":"triage","approvers":["alice"],"userId":"carol"}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		req, err := ParseStart(body)
		if err != nil {
			var bad *Invalid
			require.True(t, errors.As(err, &bad), "unexpected error type %T: %v", err, err)
			require.Equal(t, Start{}, req)
			return
		}
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
	})
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
