package ghsandbox

import (
	"path"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestDefaultFixtureSeedsPullRequestOneWithEveryFinding(t *testing.T) {
	f := DefaultFixture()
	repo := fixtureRepo(t, f, "acme", "widgets")
	pr := fixturePull(t, repo, 1)

	added := addedLines(pr)
	require.True(t, containsLine(added, "// TODO"), "an added TODO line")
	require.True(t, containsLine(added, `fmt.Println("debug:`), "a leftover debug print")
	require.True(t, containsLine(added, `AWS_SECRET_ACCESS_KEY = "`), "a committed secret")
	require.NotEmpty(t, goPackagesWithoutTestChange(pr), "a Go package changed with no test change")
}

func TestDefaultFixtureSeedsACleanPullRequestTwo(t *testing.T) {
	repo := fixtureRepo(t, DefaultFixture(), "acme", "widgets")
	pr := fixturePull(t, repo, 2)

	added := addedLines(pr)
	require.False(t, containsLine(added, "TODO"))
	require.False(t, containsLine(added, "debug"))
	require.False(t, containsLine(added, "SECRET"))
	require.Empty(t, goPackagesWithoutTestChange(pr))
}

func TestDefaultFixtureCollaborators(t *testing.T) {
	repo := fixtureRepo(t, DefaultFixture(), "acme", "widgets")
	require.Equal(t, map[string]string{"alice": "admin", "bob": "write", "mallory": "read"}, repo.Collaborators)
}

var hunkHeader = regexp.MustCompile(`^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@`)

// A patch whose hunk counts disagree with its lines would confuse any
// reviewer that parses the diff.
func TestDefaultFixturePatchHunkHeadersMatchTheirLines(t *testing.T) {
	for _, repo := range DefaultFixture().Repos {
		for _, pr := range repo.Pulls {
			for _, file := range pr.Files {
				checkHunkCounts(t, file)
			}
		}
	}
}

func checkHunkCounts(t *testing.T, file FixtureFile) {
	t.Helper()
	var wantOld, wantNew, gotOld, gotNew int
	flush := func() {
		require.Equal(t, wantOld, gotOld, "%s: old line count", file.Filename)
		require.Equal(t, wantNew, gotNew, "%s: new line count", file.Filename)
	}
	started := false
	for _, line := range strings.Split(file.Patch, "\n") {
		if m := hunkHeader.FindStringSubmatch(line); m != nil {
			if started {
				flush()
			}
			started = true
			wantOld, wantNew, gotOld, gotNew = hunkCount(m[1]), hunkCount(m[2]), 0, 0
			continue
		}
		require.True(t, started, "%s: line before the first hunk header", file.Filename)
		switch {
		case strings.HasPrefix(line, "+"):
			gotNew++
		case strings.HasPrefix(line, "-"):
			gotOld++
		default:
			gotOld++
			gotNew++
		}
	}
	require.True(t, started, "%s has no hunk", file.Filename)
	flush()
}

func hunkCount(s string) int {
	if s == "" {
		return 1
	}
	n, _ := strconv.Atoi(s)
	return n
}

func TestLoadFixtureRejectsAnUnknownPermission(t *testing.T) {
	_, err := LoadFixture(strings.NewReader(`{"botLogin":"bot","repos":[{"owner":"o","name":"r","collaborators":{"x":"owner"},"pulls":[]}]}`))
	require.ErrorContains(t, err, `permission "owner"`)
}

func fixtureRepo(t *testing.T, f Fixture, owner, name string) FixtureRepo {
	t.Helper()
	for _, r := range f.Repos {
		if r.Owner == owner && r.Name == name {
			return r
		}
	}
	t.Fatalf("fixture has no %s/%s", owner, name)
	return FixtureRepo{}
}

func fixturePull(t *testing.T, repo FixtureRepo, number int) FixturePull {
	t.Helper()
	for _, p := range repo.Pulls {
		if p.Number == number {
			return p
		}
	}
	t.Fatalf("fixture has no pull #%d", number)
	return FixturePull{}
}

func addedLines(pr FixturePull) []string {
	var lines []string
	for _, f := range pr.Files {
		for _, l := range strings.Split(f.Patch, "\n") {
			if strings.HasPrefix(l, "+") {
				lines = append(lines, l)
			}
		}
	}
	return lines
}

func containsLine(lines []string, substr string) bool {
	for _, l := range lines {
		if strings.Contains(l, substr) {
			return true
		}
	}
	return false
}

func goPackagesWithoutTestChange(pr FixturePull) []string {
	changed, tested := map[string]bool{}, map[string]bool{}
	for _, f := range pr.Files {
		if !strings.HasSuffix(f.Filename, ".go") {
			continue
		}
		dir := path.Dir(f.Filename)
		if strings.HasSuffix(f.Filename, "_test.go") {
			tested[dir] = true
		} else {
			changed[dir] = true
		}
	}
	var untested []string
	for dir := range changed {
		if !tested[dir] {
			untested = append(untested, dir)
		}
	}
	return untested
}
