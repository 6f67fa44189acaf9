package standalone

import (
	"fmt"
	"os"
	"path/filepath"
)

// RepoRoot walks up from the working directory to the directory holding
// go.mod: tests run in their package's directory, and the binaries,
// fixtures and docs they need are found from the root.
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("working directory: %w", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod above %s", dir)
		}
		dir = parent
	}
}
