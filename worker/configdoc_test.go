package main

import (
	"testing"

	"github.com/agentrun/agentrun/internal/agentworker"
	"github.com/agentrun/agentrun/internal/configdoc"
)

// TestConfigurationDocIsCurrent holds docs/configuration.md's worker section
// to the table `worker --help` prints.
func TestConfigurationDocIsCurrent(t *testing.T) {
	configdoc.Check(t, "worker", agentworker.Settings().Vars())
}
