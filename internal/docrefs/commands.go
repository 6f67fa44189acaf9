package docrefs

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// Command is one command line a page tells a reader to type: a `starter`
// subcommand with its flags, or `make` with its targets.
type Command struct {
	File string // relative to the repository root
	Line int
	// Program is "starter" or "make".
	Program string
	// Sub is the starter's subcommand; empty for make.
	Sub string
	// Flags are the flags' names as typed, without dashes or value
	// (starter); Targets the make targets named.
	Flags   []string
	Targets []string
	Text    string
}

var (
	fence      = regexp.MustCompile("^\\s*(```|~~~)")
	inlineCode = regexp.MustCompile("`([^`]+)`")
	// starter, alone or as a path's last segment (bin/starter, ./starter),
	// then its subcommand.
	starterCmd = regexp.MustCompile(`(?:^|[\s/(])starter\s+([a-z][a-z-]*)\b([^|;&>#]*)`)
	makeCmd    = regexp.MustCompile(`(?:^|[\s(])make\s+([^|;&>#]*)`)
	flagToken  = regexp.MustCompile(`^--?([A-Za-z][A-Za-z0-9-]*)`)
	makeTarget = regexp.MustCompile(`^[a-z][a-z0-9_.-]*$`)
)

// Commands finds the command lines of the repository's README.md and
// docs/*.md: those in fenced code blocks (a line ending in a backslash
// goes on) and those in inline code.
func (c *Checker) Commands() ([]Command, error) {
	files, err := filepath.Glob(filepath.Join(c.Root, "docs", "*.md"))
	if err != nil {
		return nil, err
	}
	files = append([]string{filepath.Join(c.Root, "README.md")}, files...)
	var out []Command
	for _, path := range files {
		rel, err := filepath.Rel(c.Root, path)
		if err != nil {
			return nil, err
		}
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		out = append(out, commandsOf(rel, f)...)
		f.Close()
	}
	return out, nil
}

func commandsOf(file string, f *os.File) []Command {
	var out []Command
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1024*1024), 1024*1024)
	inFence, n, pending, pendingLine := false, 0, "", 0
	for sc.Scan() {
		n++
		line := sc.Text()
		if fence.MatchString(line) {
			inFence = !inFence
			continue
		}
		if inFence {
			if pending == "" {
				pendingLine = n
			}
			if strings.HasSuffix(strings.TrimSpace(line), `\`) {
				pending += strings.TrimSuffix(strings.TrimSpace(line), `\`) + " "
				continue
			}
			out = append(out, CommandsIn(file, pendingLine, pending+line)...)
			pending = ""
			continue
		}
		for _, m := range inlineCode.FindAllStringSubmatch(line, -1) {
			out = append(out, CommandsIn(file, n, m[1])...)
		}
	}
	return out
}

// CommandsIn finds the starter and make command lines in one line of
// shell.
func CommandsIn(file string, line int, text string) []Command {
	var out []Command
	for _, m := range starterCmd.FindAllStringSubmatch(text, -1) {
		cmd := Command{File: file, Line: line, Program: "starter", Sub: m[1], Text: strings.TrimLeft(strings.TrimSpace(m[0]), "/(")}
		for _, tok := range strings.Fields(m[2]) {
			if tok == "--" {
				break
			}
			if f := flagToken.FindStringSubmatch(tok); f != nil {
				cmd.Flags = append(cmd.Flags, f[1])
			}
		}
		out = append(out, cmd)
	}
	for _, m := range makeCmd.FindAllStringSubmatch(text, -1) {
		cmd := Command{File: file, Line: line, Program: "make", Text: strings.TrimLeft(strings.TrimSpace(m[0]), "/(")}
		toks := strings.Fields(m[1])
		for i := 0; i < len(toks); i++ {
			tok := toks[i]
			if tok == "-C" || tok == "-f" {
				i++ // make's own flag and its value
				continue
			}
			if strings.Contains(tok, "=") || strings.HasPrefix(tok, "-") {
				continue // a variable or make's own flag
			}
			if !makeTarget.MatchString(tok) {
				break // prose after the command
			}
			cmd.Targets = append(cmd.Targets, tok)
		}
		if len(cmd.Targets) > 0 {
			out = append(out, cmd)
		}
	}
	return out
}

var makeRule = regexp.MustCompile(`^([A-Za-z0-9_.-]+(?:\s+[A-Za-z0-9_.-]+)*)\s*:([^=]|$)`)

// MakeTargets are the targets the Makefile at root defines.
func MakeTargets(root string) (map[string]bool, error) {
	raw, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		return nil, err
	}
	targets := map[string]bool{}
	for _, line := range strings.Split(string(raw), "\n") {
		if m := makeRule.FindStringSubmatch(line); m != nil {
			for _, t := range strings.Fields(m[1]) {
				targets[t] = true
			}
		}
	}
	return targets, nil
}

// SortedKeys is m's keys in order.
func SortedKeys(m map[string]bool) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
