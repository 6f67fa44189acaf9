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
