package main

import (
	"testing"

	"github.com/agentrun/agentrun/internal/configdoc"
	"github.com/agentrun/agentrun/internal/ghsandbox/cmd/ghsandbox/settings"
)

// TestConfigurationDocIsCurrent holds docs/configuration.md's ghsandbox
// section to the table `ghsandbox --help` prints.
func TestConfigurationDocIsCurrent(t *testing.T) {
	configdoc.Check(t, "ghsandbox", settings.Settings().Vars())
}
