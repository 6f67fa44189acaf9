// Package model is the Model interface the worker's ModelNext activity
// calls. The providers are its subpackages, offline (the deterministic
// reviewer, no network) and openai (any OpenAI-compatible chat-completions
// server); the worker's assembly (internal/agentworker) chooses one by
// MODEL_PROVIDER, so that naming the interface links no provider.
package model

import (
	"context"

	"github.com/agentrun/agentrun/api"
)

// Model chooses the agent's next move from the conversation so far.
type Model interface {
	Next(ctx context.Context, conversation []api.Message, tools []api.ToolSpec) (api.ModelDecision, error)
}
