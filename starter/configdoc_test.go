package main

import (
	"testing"

	"github.com/agentrun/agentrun/internal/configdoc"
)

// TestConfigurationDocIsCurrent holds docs/configuration.md's starter section
// to the table `starter --help` prints.
func TestConfigurationDocIsCurrent(t *testing.T) {
	configdoc.Check(t, "starter", starterSettings().Vars())
}
