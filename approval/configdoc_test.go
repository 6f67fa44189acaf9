package main

import (
	"testing"

	"github.com/agentrun/agentrun/approval/settings"
	"github.com/agentrun/agentrun/internal/configdoc"
)

// TestConfigurationDocIsCurrent holds docs/configuration.md's approval
// section to the table `approval --help` prints.
func TestConfigurationDocIsCurrent(t *testing.T) {
	configdoc.Check(t, "approval", settings.Settings().Vars())
}
