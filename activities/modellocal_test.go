package activities

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/model/offline"
)

// streamingOffline is the offline reviewer behind a Stream method, as a
// streaming provider (model/openai) has.
type streamingOffline struct{ *offline.Reviewer }

func (s streamingOffline) Stream(ctx context.Context, conversation []api.Message, tools []api.ToolSpec, _ func(string)) (api.ModelDecision, error) {
	return s.Next(ctx, conversation, tools)
}

// plainModel answers without streaming and says nothing of how long it takes.
type plainModel struct{}

func (plainModel) Next(context.Context, []api.Message, []api.ToolSpec) (api.ModelDecision, error) {
	return api.ModelDecision{Final: "done"}, nil
}

// Only a model that answers at once and does not stream lets the run's next
// call be local: a streaming one's heartbeats carry its text, and a model
// that may take long would hold its run's workflow task, and its queries.
func TestModelNextAnswersLocalOnlyForAModelThatAnswersAtOnceWithoutStreaming(t *testing.T) {
	in := api.ModelInput{Conversation: []api.Message{{Role: api.RoleSystem, Content: "review"}, {Role: api.RoleUser, Content: "acme/widgets#1"}}}
	for _, tc := range []struct {
		name  string
		model interface {
			Next(context.Context, []api.Message, []api.ToolSpec) (api.ModelDecision, error)
		}
		local bool
	}{
		{"the offline reviewer", offline.NewReviewer(), true},
		{"a streaming model", streamingOffline{offline.NewReviewer()}, false},
		{"a model that may take long", plainModel{}, false},
	} {
		d, err := (&Activities{Model: tc.model}).ModelNext(context.Background(), in)
		require.NoError(t, err, tc.name)
		require.Equal(t, tc.local, d.Local, tc.name)
	}
}
