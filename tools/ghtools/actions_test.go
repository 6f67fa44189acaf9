package ghtools_test

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/tools"
	"github.com/agentrun/agentrun/tools/ghtools"
)

// reconcileCase is one state of the fake GitHub and what a reconciliation
// of the approved call must answer in it.
type reconcileCase struct {
	name        string
	setup       func(f *fakeGitHub)
	outcome     string
	externalID  string
	ignoredFrom []int64
	// reason is part of the reason a cannot_tell answer must give.
	reason string
}

// testReconcile runs each case against a fresh fake: Reconcile of the call
// approved with args under key answers the case's outcome, names the effect, lists
// the look-alikes it passed over (each with why), says why it cannot tell,
// and never makes the write op.
func testReconcile(t *testing.T, newAction func(ghtools.Access) tools.Action, tool, args, key, write string, cases []reconcileCase) {
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeGitHub(t)
			tc.setup(f)
			rec, err := newAction(f.access()).Reconcile(context.Background(), approvedCall(t, tool, args, key))
			require.NoError(t, err)
			require.Equal(t, tc.outcome, rec.Outcome, rec.Reason)
			require.Equal(t, tc.externalID, rec.Output.ExternalID)
			if tc.outcome == api.ReconcileCannotTell {
				require.NotEmpty(t, rec.Reason)
				require.Contains(t, rec.Reason, tc.reason)
			}
			var ignored []int64
			for _, ig := range rec.Output.Ignored {
				require.NotEmpty(t, ig.Why)
				ignored = append(ignored, ig.CommentID)
			}
			require.Equal(t, tc.ignoredFrom, ignored)
			require.Zero(t, f.count(write), "reconciling never writes")
		})
	}
}

// requireRefused checks that action refuses call in an attempt (a proven
// refusal: nothing happened) and in a reconciliation (cannot_tell: no
// effect can prove a call that was refused).
func requireRefused(t *testing.T, action tools.Action, call tools.Call) {
	t.Helper()
	_, err := action.Execute(context.Background(), call)
	require.Equal(t, api.ErrTypeToolRejected, outerType(err), "%v", err)
	rec, err := action.Reconcile(context.Background(), call)
	require.NoError(t, err)
	require.Equal(t, api.ReconcileCannotTell, rec.Outcome)
}

// previewOf is action's preview of a call with args on the run's pull
// request; the arguments must be valid.
func previewOf(t *testing.T, action tools.Action) func(args string) string {
	return func(args string) string {
		t.Helper()
		p, err := action.Preview(tools.Call{Args: json.RawMessage(args), Target: pr})
		require.NoError(t, err)
		return p
	}
}

// requireTouches checks what a person is told the action changes.
func requireTouches(t *testing.T, action tools.Action, want string) {
	t.Helper()
	touches, err := action.Touches(tools.Call{Target: pr})
	require.NoError(t, err)
	require.Equal(t, want, touches)
}

// lostResponse is an action whose write GitHub makes but whose answer is
// lost on the way back.
type lostResponse struct {
	newAction       func(ghtools.Access) tools.Action
	tool, args, key string
	// write is the fake's operation for the action's write; externalID
	// names the effect the next attempt must find.
	write, externalID string
	// before prepares the fake, between runs after the lost answer, and
	// after checks what the next attempt returned; each may be nil.
	before  func(f *fakeGitHub)
	between func(t *testing.T, f *fakeGitHub)
	after   func(t *testing.T, out api.ToolOutput)
}

// testLostResponse loses the write's answer both ways a connection can: the
// attempt's outcome is unknown (not refused), and the next attempt finds the
// effect and writes nothing.
func testLostResponse(t *testing.T, lr lostResponse) {
	for _, lose := range []string{"hangup", "502"} {
		t.Run(lose, func(t *testing.T) {
			f := newFakeGitHub(t)
			if lr.before != nil {
				lr.before(f)
			}
			f.loseNext(lr.write, lose)
			action := lr.newAction(f.access())
			call := approvedCall(t, lr.tool, lr.args, lr.key)

			_, err := action.Execute(context.Background(), call)
			require.Error(t, err)
			require.Empty(t, outerType(err), "a lost response leaves the outcome unknown, not refused: %v", err)
			if lr.between != nil {
				lr.between(t, f)
			}

			out, err := action.Execute(context.Background(), call)
			require.NoError(t, err)
			require.True(t, out.AlreadyExisted)
			require.Equal(t, lr.externalID, out.ExternalID)
			require.Equal(t, 1, f.count(lr.write), "the second attempt wrote nothing")
			if lr.after != nil {
				lr.after(t, out)
			}
		})
	}
}

// requireMade checks that an attempt's output names the item it made, not
// one it found: its number or ID (under key in what the model reads) and
// its page.
func requireMade(t *testing.T, out api.ToolOutput, key string, id int64, url string) {
	t.Helper()
	require.Equal(t, strconv.FormatInt(id, 10), out.ExternalID)
	require.Equal(t, url, out.URL)
	require.False(t, out.AlreadyExisted)
	var content map[string]any
	require.NoError(t, json.Unmarshal(out.Content, &content))
	require.Equal(t, float64(id), content[key])
	require.Equal(t, url, content["url"])
}
