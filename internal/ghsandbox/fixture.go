package ghsandbox

import (
	"bytes"
	_ "embed"
	"fmt"
	"io"
	"time"

	"github.com/agentrun/agentrun/internal/ghsandbox/wire"
)

// Fixture is the state a sandbox starts from.
type Fixture struct {
	// BotLogin is the user every comment created through the API is posted as.
	BotLogin string        `json:"botLogin"`
	Repos    []FixtureRepo `json:"repos"`
}

// FixtureRepo is one repository with its collaborators and pull requests.
type FixtureRepo struct {
	Owner         string `json:"owner"`
	Name          string `json:"name"`
	DefaultBranch string `json:"defaultBranch,omitempty"`
	// Collaborators maps a login to its permission: admin, write or read.
	Collaborators map[string]string `json:"collaborators,omitempty"`
	Pulls         []FixturePull     `json:"pulls"`
}

// FixturePull is one pull request. Its additions, deletions and changed-file
// count are derived from Files so that they always agree with the patches.
type FixturePull struct {
	Number    int              `json:"number"`
	Title     string           `json:"title"`
	Body      string           `json:"body"`
	Author    string           `json:"author"`
	State     string           `json:"state"`
	HeadRef   string           `json:"headRef"`
	HeadSHA   string           `json:"headSha"`
	BaseRef   string           `json:"baseRef"`
	BaseSHA   string           `json:"baseSha"`
	CreatedAt time.Time        `json:"createdAt"`
	Files     []FixtureFile    `json:"files"`
	Comments  []FixtureComment `json:"comments,omitempty"`
}

// FixtureFile is one changed file; Patch is the unified diff hunks GitHub
// returns in the "patch" field (no file header).
type FixtureFile struct {
	Filename string `json:"filename"`
	Status   string `json:"status"`
	Patch    string `json:"patch,omitempty"`
}

// FixtureComment is a comment already on the pull request when the sandbox starts.
type FixtureComment struct {
	User      string    `json:"user"`
	Body      string    `json:"body"`
	CreatedAt time.Time `json:"createdAt"`
}

//go:embed fixtures/default.json
var defaultFixtureJSON []byte

// DefaultFixture is the demo state: acme/widgets with PR #1 (full of findings
// a reviewer should report) and PR #2 (clean), and collaborators alice
// (admin), bob (write) and mallory (read).
func DefaultFixture() Fixture {
	f, err := LoadFixture(bytes.NewReader(defaultFixtureJSON))
	if err != nil {
		// The file is compiled in and covered by tests; a failure here is a build defect.
		panic(fmt.Sprintf("ghsandbox: embedded default fixture: %v", err))
	}
	return f
}

// LoadFixture reads a Fixture from JSON.
func LoadFixture(r io.Reader) (Fixture, error) {
	var f Fixture
	if err := wire.ReadStrict(r, &f); err != nil {
		return Fixture{}, fmt.Errorf("fixture: %w", err)
	}
	if err := f.validate(); err != nil {
		return Fixture{}, err
	}
	return f, nil
}

func (f Fixture) validate() error {
	if f.BotLogin == "" {
		return fmt.Errorf("fixture: botLogin is required")
	}
	for _, repo := range f.Repos {
		if repo.Owner == "" || repo.Name == "" {
			return fmt.Errorf("fixture: every repo needs an owner and a name")
		}
		for login, perm := range repo.Collaborators {
			if !validPermission(perm) {
				return fmt.Errorf("fixture: %s/%s collaborator %s: permission %q is not admin, write or read", repo.Owner, repo.Name, login, perm)
			}
		}
		seen := map[int]bool{}
		for _, pull := range repo.Pulls {
			if pull.Number <= 0 || seen[pull.Number] {
				return fmt.Errorf("fixture: %s/%s: pull number %d is not positive or is repeated", repo.Owner, repo.Name, pull.Number)
			}
			seen[pull.Number] = true
		}
	}
	return nil
}

func validPermission(p string) bool {
	return p == "admin" || p == "write" || p == "read"
}
