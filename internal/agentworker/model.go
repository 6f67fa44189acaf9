package agentworker

import (
	"fmt"
	"strings"

	"github.com/agentrun/agentrun/model"
	"github.com/agentrun/agentrun/model/offline"
	"github.com/agentrun/agentrun/model/openai"
)

// Model providers NewModel knows, as MODEL_PROVIDER names them.
const (
	ProviderOffline = "offline"
	ProviderOpenAI  = openai.Provider
)

// KnownProviders lists the values MODEL_PROVIDER accepts.
func KnownProviders() []string {
	return []string{ProviderOffline, ProviderOpenAI}
}

// NewModel is the model cfg names: MODEL_PROVIDER (empty means the
// offline reviewer, so that a run needs no provider account unless one is
// asked for) with its settings.
func NewModel(cfg Config) (model.Model, error) {
	switch cfg.ModelProvider {
	case "", ProviderOffline:
		return offline.NewReviewer(), nil
	case ProviderOpenAI:
		return openai.New(cfg.OpenAI)
	default:
		return nil, fmt.Errorf("MODEL_PROVIDER=%q is not a known model provider; known providers: %s",
			cfg.ModelProvider, strings.Join(KnownProviders(), ", "))
	}
}
