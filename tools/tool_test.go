package tools_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/tools"
)

func TestDecodeArgsReadsOnlyTheFieldsTheToolDeclares(t *testing.T) {
	var a struct {
		Kind string `json:"kind"`
		Note string `json:"note"`
	}
	require.NoError(t, tools.Call{Args: json.RawMessage(`{"kind":"fix","note":"n"}`)}.DecodeArgs(&a))
	require.Equal(t, "fix", a.Kind)
	require.Equal(t, "n", a.Note)

	for _, args := range []string{`{"kind":"fix","extra":1}`, `{"kind":7}`, `[]`, ``} {
		err := tools.Call{Args: json.RawMessage(args)}.DecodeArgs(&a)
		require.ErrorContains(t, err, "read the arguments: ", args)
	}
}

func TestCheckApprovedRefusesACallWithoutItsKeyOrNotTheApprovedOne(t *testing.T) {
	a := previewAction{}
	ok := tools.Call{Args: json.RawMessage(`{"text":"hi"}`), OperationKey: "run-1:3"}
	ok.Approved, _ = a.Preview(ok)
	require.NoError(t, tools.CheckApproved(a, ok))
	noKey := ok
	noKey.OperationKey = ""
	require.ErrorIs(t, tools.CheckApproved(a, noKey), tools.ErrNotApproved)
	other := ok
	other.Args = json.RawMessage(`{"text":"bye"}`)
	require.ErrorIs(t, tools.CheckApproved(a, other), tools.ErrNotApproved)
	bad := ok
	bad.Args = json.RawMessage(`{"text":1}`)
	require.ErrorIs(t, tools.CheckApproved(a, bad), tools.ErrNotApproved)
}

// previewAction previews its text argument.
type previewAction struct{ tools.Action }

func (previewAction) Preview(c tools.Call) (string, error) {
	var a struct {
		Text string `json:"text"`
	}
	err := c.DecodeArgs(&a)
	return "say " + a.Text, err
}
