// Package docrefs finds the stale references of the docs and the code's
// comments: repository paths that do not exist (a file that moved) and
// absolute paths of one machine (a developer's checkout, a shared notes
// folder), which mean nothing to a reader elsewhere. Its test runs it over
// the repository.
package docrefs

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Module is cut from import paths so that they are checked as repository
// paths.
const Module = "github.com/agentrun/agentrun/"

// Finding is one stale reference.
type Finding struct {
	File string // relative to the repository root
	Line int
	Ref  string
	Why  string
}

func (f Finding) String() string { return fmt.Sprintf("%s:%d: %s (%s)", f.File, f.Line, f.Ref, f.Why) }

var (
	// A path-like token: segments of path characters joined by slashes.
	pathToken = regexp.MustCompile(`[A-Za-z0-9_.-]+(?:/[A-Za-z0-9_.-]+)+/?`)
	// An absolute path under a directory that only one machine has.
	machinePath = regexp.MustCompile(`(?:^|[\s"'(=` + "`" + `])(/(?:work|home|root|Users|tmp)/[A-Za-z0-9_.\-/]*)`)
	// A markdown link's target.
	mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)
)

// Checker knows the repository's top-level entries: a token is taken for a
// repository path only when its first segment is one of them, so that
// `acme/widgets` or `application/json` are never flagged.
type Checker struct {
	Root string
	top  map[string]bool
}

// NewChecker reads root's top-level entries, but for those no checkout
// holds: bin/ (what make builds) and .data/ (what make up and the mutation
// runs write), whose paths the docs name as a run leaves them.
func NewChecker(root string) (*Checker, error) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil, fmt.Errorf("read the repository root: %w", err)
	}
	top := map[string]bool{}
	for _, e := range entries {
		if e.IsDir() && e.Name() != ".git" && e.Name() != "bin" && e.Name() != ".data" {
			top[e.Name()] = true
		}
	}
	return &Checker{Root: root, top: top}, nil
}

// Text checks one piece of prose (a markdown file, or the comments of a Go
// file) found in file, starting at line. markdown also checks the relative
// targets of links, from file's directory.
func (c *Checker) Text(file string, line int, text string, markdown bool) []Finding {
	var found []Finding
	fenced := false
	for i, l := range strings.Split(text, "\n") {
		at := line + i
		// A fenced block holds commands and program output (a profile's
		// function names look like paths); the prose around it names files.
		if markdown && strings.HasPrefix(strings.TrimSpace(l), "```") {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		for _, m := range machinePath.FindAllStringSubmatch(l, -1) {
			found = append(found, Finding{file, at, m[1], "an absolute path of one machine"})
		}
		for _, loc := range pathToken.FindAllStringIndex(l, -1) {
			if ref, ok := c.repoPath(l, loc); ok && !c.exists(ref) {
				found = append(found, Finding{file, at, ref, "no such path in the repository"})
			}
		}
		if markdown {
			for _, m := range mdLink.FindAllStringSubmatch(l, -1) {
				if ref, ok := linkTarget(file, m[1]); ok && !c.exists(ref) {
					found = append(found, Finding{file, at, m[1], "the link's target does not exist"})
				}
			}
		}
	}
	return found
}

// repoPath takes the token at loc in l for a repository path when it starts
// at a top-level entry and is not part of a URL, an absolute path, a
// pattern or a placeholder.
func (c *Checker) repoPath(l string, loc []int) (string, bool) {
	ref := l[loc[0]:loc[1]]
	if loc[0] > 0 && strings.ContainsAny(l[loc[0]-1:loc[0]], "/:.@$<{*~\\") {
		return "", false
	}
	if rest := l[loc[1]:]; rest != "" && strings.ContainsAny(rest[:1], "<{*$…") {
		return "", false
	}
	imported := strings.HasPrefix(ref, Module)
	ref = strings.TrimPrefix(ref, Module)
	ref = strings.TrimRight(ref, ".")
	first, _, _ := strings.Cut(ref, "/")
	if !c.top[first] {
		return "", false
	}
	// Prose says "model/tool turns" and MCP has a "tools/list" method: a
	// bare two-word token is a path only when it looks like one.
	quoted := loc[0] > 0 && l[loc[0]-1] == '`'
	if !quoted && !imported && !hasFileExtension(ref) && first != "internal" {
		return "", false
	}
	return ref, true
}

var fileExtensions = []string{".go", ".md", ".json", ".yaml", ".yml", ".sh", ".toml", ".sql", ".html", ".css", ".js", ".txt"}

func hasFileExtension(ref string) bool {
	for _, ext := range fileExtensions {
		if strings.HasSuffix(ref, ext) {
			return true
		}
	}
	return false
}

func (c *Checker) exists(ref string) bool {
	_, err := os.Stat(filepath.Join(c.Root, filepath.FromSlash(strings.TrimSuffix(ref, "/"))))
	return err == nil
}

// linkTarget resolves a relative link of the markdown file; URLs, anchors
// and absolute links are not the repository's.
func linkTarget(file, target string) (string, bool) {
	if strings.Contains(target, "://") || strings.HasPrefix(target, "#") || strings.HasPrefix(target, "/") ||
		strings.HasPrefix(target, "mailto:") {
		return "", false
	}
	target, _, _ = strings.Cut(target, "#")
	if target == "" {
		return "", false
	}
	return filepath.ToSlash(filepath.Join(filepath.Dir(file), target)), true
}
