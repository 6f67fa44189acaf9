package request

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
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
