package activities

import (
	"fmt"
	"os"
	"strings"
)

// Model providers NewModel knows.
const (
	ProviderOffline = "offline"
	ProviderOpenAI  = "openai"
)

// KnownModelProviders lists the values MODEL_PROVIDER accepts.
func KnownModelProviders() []string {
	return []string{ProviderOffline, ProviderOpenAI}
}

// NewModel returns the model of a provider, as MODEL_PROVIDER names it. The
// empty name means the offline reviewer, so that a run needs no provider
// account unless one is asked for.
func NewModel(provider string) (Model, error) {
	switch provider {
	case "", ProviderOffline:
		return NewOfflineReviewer(), nil
	case ProviderOpenAI:
		// Callers that inject their environment use NewModelFromEnv instead.
		return NewModelFromEnv(provider, os.Getenv)
	default:
		return nil, fmt.Errorf("MODEL_PROVIDER=%q is not a known model provider; known providers: %s",
			provider, strings.Join(KnownModelProviders(), ", "))
	}
}
