package ghsandbox

import (
	"io"
)

// FixtureLabel is a label as fixtures give it.
type FixtureLabel = LabelFacts

// DefaultFixture is the demo state: acme/widgets with PR #1 (full of
// findings a reviewer should report) and PR #2 (clean).
func DefaultFixture() Fixture { return defaultFixture() }

// LoadFixture reads a Fixture from JSON.
func LoadFixture(r io.Reader) (Fixture, error) { return loadFixture(r) }
