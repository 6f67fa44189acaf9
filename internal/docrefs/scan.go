package docrefs

import (
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// skipped are folders whose text is data, not prose: recorded histories,
// schemas, build output.
var skipped = map[string]bool{".git": true, "bin": true, ".data": true, "testdata": true, "node_modules": true}

// Repository checks every markdown file and the comments of every Go file
// under the root. CHANGELOG.md is history and may name what was deleted.
func (c *Checker) Repository() ([]Finding, error) {
	var found []Finding
	err := filepath.WalkDir(c.Root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if skipped[d.Name()] {
				return filepath.SkipDir
			}
			return nil
		}
		rel, err := filepath.Rel(c.Root, path)
		if err != nil {
			return fmt.Errorf("relative path of %s: %w", path, err)
		}
		rel = filepath.ToSlash(rel)
		switch {
		case strings.HasSuffix(rel, ".md") && rel != "CHANGELOG.md":
			text, err := os.ReadFile(path)
			if err != nil {
				return fmt.Errorf("read %s: %w", rel, err)
			}
			found = append(found, c.Text(rel, 1, string(text), true)...)
		case strings.HasSuffix(rel, ".go"):
			f, err := c.goComments(path, rel)
			if err != nil {
				return err
			}
			found = append(found, f...)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("walk %s: %w", c.Root, err)
	}
	return found, nil
}

func (c *Checker) goComments(path, rel string) ([]Finding, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		// A file another change is in the middle of: the build says so.
		return nil, nil
	}
	var found []Finding
	for _, group := range f.Comments {
		for _, cm := range group.List {
			line := fset.Position(cm.Pos()).Line
			found = append(found, c.Text(rel, line, cm.Text, false)...)
		}
	}
	return found, nil
}
