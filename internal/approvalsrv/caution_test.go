package approvalsrv

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRunPageShowsTheApproverAnActionInDoubtOnTheSameTarget: a follow-up's
// approver reads, beside the preview, what the followed-up run may
// already have done on that target; the text is escaped like the rest.
func TestRunPageShowsTheApproverAnActionInDoubtOnTheSameTarget(t *testing.T) {
	h := newHarness(t, testConfig(), nil)
	snap := waitingRun()
	snap.PendingAction.Caution = "run r1's comment under operationKey r1:5 may have been posted on acme/widgets#1 (<b>abandoned</b> by ops)"
	h.runs.put("run-1", snap)

	page, _ := h.browser(map[string]string{"X-Forwarded-User": "alice"}).openRun("run-1")

	require.Contains(t, page, "<dt>In doubt on this target</dt>")
	require.Contains(t, page, "run r1&#39;s comment under operationKey r1:5 may have been posted on acme/widgets#1 (&lt;b&gt;abandoned&lt;/b&gt; by ops)")
}
