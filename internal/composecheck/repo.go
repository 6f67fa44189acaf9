package composecheck

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Module is what go.mod says about the repository.
type Module struct {
	Root      string // the directory holding go.mod
	Path      string // the module path
	GoVersion string // the go directive, e.g. 1.26.8
}

// FindModule walks up from dir to the nearest go.mod and reads it.
func FindModule(dir string) (Module, error) {
	for {
		data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil {
			return parseGoMod(dir, data)
		}
		if !errors.Is(err, os.ErrNotExist) {
			return Module{}, fmt.Errorf("read go.mod in %s: %w", dir, err)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return Module{}, errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}

func parseGoMod(root string, data []byte) (Module, error) {
	m := Module{Root: root}
	scanner := bufio.NewScanner(bytes.NewReader(data))
	for scanner.Scan() {
		fields := strings.Fields(scanner.Text())
		if len(fields) != 2 {
			continue
		}
		switch fields[0] {
		case "module":
			m.Path = strings.Trim(fields[1], `"`)
		case "go":
			m.GoVersion = fields[1]
		}
	}
	if m.Path == "" || m.GoVersion == "" {
		return Module{}, fmt.Errorf("%s/go.mod: no module path or go directive", root)
	}
	return m, nil
}

// PackageDir is the directory of a package of the module, given its import path.
func (m Module) PackageDir(importPath string) (string, bool) {
	if importPath == m.Path {
		return m.Root, true
	}
	rel, ok := strings.CutPrefix(importPath, m.Path+"/")
	if !ok {
		return "", false
	}
	return filepath.Join(m.Root, filepath.FromSlash(rel)), true
}
