// Package model is what every model provider shares: the Model interface the
// worker's ModelNext activity calls, and the choice of provider by
// MODEL_PROVIDER. The providers are its subpackages: offline (the
// deterministic reviewer, no network) and openai (any OpenAI-compatible
// chat-completions server).
package model

import (
	"context"
	"fmt"
	"strings"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/model/offline"
	"github.com/agentrun/agentrun/model/openai"
)

// Model chooses the agent's next move from the conversation so far.
type Model interface {
	Next(ctx context.Context, conversation []api.Message, tools []api.ToolSpec) (api.ModelDecision, error)
}

// Model providers New knows, as MODEL_PROVIDER names them.
const (
	ProviderOffline = "offline"
	ProviderOpenAI  = openai.Provider
)

// KnownProviders lists the values MODEL_PROVIDER accepts.
func KnownProviders() []string {
	return []string{ProviderOffline, ProviderOpenAI}
}

// Config is the model's part of the worker's configuration, read once at
// start-up by the worker's config reader.
type Config struct {
	// Provider is MODEL_PROVIDER; empty means the offline reviewer, so that a
	// run needs no provider account unless one is asked for.
	Provider string
	// OpenAI is the OPENAI_* settings, used when Provider is openai.
	OpenAI openai.Config
}

// New returns the model cfg names.
func New(cfg Config) (Model, error) {
	switch cfg.Provider {
	case "", ProviderOffline:
		return offline.NewReviewer(), nil
	case ProviderOpenAI:
		return openai.New(cfg.OpenAI)
	default:
		return nil, fmt.Errorf("MODEL_PROVIDER=%q is not a known model provider; known providers: %s",
			cfg.Provider, strings.Join(KnownProviders(), ", "))
	}
}
