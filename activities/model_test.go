package activities

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestNewModelDefaultsToTheOfflineReviewer(t *testing.T) {
	for _, provider := range []string{"", "offline"} {
		m, err := NewModel(provider)
		require.NoError(t, err, provider)
		require.IsType(t, &OfflineReviewer{}, m)
	}
}

func TestNewModelRejectsUnknownProviderNamingTheVariable(t *testing.T) {
	for _, provider := range []string{"openai-typo", "OFFLINE", " offline"} {
		m, err := NewModel(provider)
		require.Nil(t, m)
		require.ErrorContains(t, err, "MODEL_PROVIDER")
		require.ErrorContains(t, err, "known providers: offline")
	}
}
