package ghsandbox

import (
	"io"

	"github.com/agentrun/agentrun/internal/ghsandbox/fixture"
	"github.com/agentrun/agentrun/internal/ghsandbox/wire"
)

// The fixture types are package fixture's; these names keep the sandbox's
// API in one import.
type (
	Fixture        = fixture.Fixture
	FixtureRepo    = fixture.Repo
	FixturePull    = fixture.Pull
	FixtureFile    = fixture.File
	FixtureComment = fixture.Comment
	FixtureLabel   = wire.LabelFacts
)

// DefaultFixture is the demo state: acme/widgets with PR #1 (full of
// findings a reviewer should report) and PR #2 (clean).
func DefaultFixture() Fixture { return fixture.Default() }

// LoadFixture reads a Fixture from JSON.
func LoadFixture(r io.Reader) (Fixture, error) { return fixture.Load(r) }
