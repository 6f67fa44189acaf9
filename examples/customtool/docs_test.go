package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// docs/tools.md's Go blocks are checked so that the page cannot drift from
// the API. The convention, one of two kinds per ```go block:
//   - a block whose first line that is not a // comment is a package clause
//     is a whole file. One that is, verbatim, a file of this module is built
//     with it (the page shows the example's own code). Any other is written to
//     a package of its own in a temporary module that requires agentrun
//     through a replace of the repository (as this module's go.mod does),
//     and the module must pass go vet, which type-checks it;
//   - any other block is an excerpt of this module's code: its lines, with
//     indentation and blank lines ignored, must appear in this order and
//     together in one of its .go files, where a line "..." stands for any
//     lines. This module builds, so the excerpt does.

const toolsDoc = "../../docs/tools.md"

type goBlock struct {
	line int // of the opening fence in the page
	text string
}

var fence = regexp.MustCompile("(?m)^```go\n((?s:.*?))^```\n")

func goBlocks(page string) []goBlock {
	var blocks []goBlock
	for _, m := range fence.FindAllStringSubmatchIndex(page, -1) {
		blocks = append(blocks, goBlock{line: 1 + strings.Count(page[:m[0]], "\n"), text: page[m[2]:m[3]]})
	}
	return blocks
}

func isWholeFile(text string) bool {
	for _, l := range strings.Split(text, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "//") {
			return strings.HasPrefix(l, "package ")
		}
	}
	return false
}

// vetWholeFiles writes each block to its own package of a temporary module
// over this repository and runs go vet on all of them.
func vetWholeFiles(t *testing.T, blocks []goBlock) error {
	t.Helper()
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	mod, err := os.ReadFile("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	mod = regexp.MustCompile(`(?m)^module .*$`).ReplaceAll(mod, []byte("module docblocks"))
	mod = regexp.MustCompile(`(?m)^replace github.com/agentrun/agentrun => .*$`).
		ReplaceAll(mod, []byte("replace github.com/agentrun/agentrun => "+repo))
	sum, err := os.ReadFile("go.sum")
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "go.mod"), mod)
	write(t, filepath.Join(dir, "go.sum"), sum)
	for _, b := range blocks {
		write(t, filepath.Join(dir, fmt.Sprintf("line%d", b.line), "block.go"), []byte(b.text))
	}
	cmd := exec.CommandContext(t.Context(), "go", "vet", "./...")
	cmd.Dir = dir
	// Offline: the blocks may use only what this module already requires.
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod", "GOPROXY=off")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go vet of docs/tools.md's whole-file blocks (package lineN is the block at line N): %w\n%s", err, out.String())
	}
	return nil
}

func write(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// codeLines are text's lines without indentation or blank lines.
func codeLines(text string) []string {
	var lines []string
	for _, l := range strings.Split(text, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	return lines
}

// excerptOf says whether the excerpt's parts appear, in order, in src.
func excerptOf(excerpt, src []string) bool {
	at := 0
	var part []string
	for _, l := range append(excerpt, "...") {
		if l != "..." {
			part = append(part, l)
			continue
		}
		found := false
		for ; at+len(part) <= len(src) && len(part) > 0; at++ {
			if equal(src[at:at+len(part)], part) {
				at, found = at+len(part), true
				break
			}
		}
		if len(part) > 0 && !found {
			return false
		}
		part = nil
	}
	return true
}

func equal(a, b []string) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return len(a) == len(b)
}

// sources are the module's Go files, tests too (an author's test using
// the conformance kit is shown), by path.
func sources(t *testing.T) map[string]string {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	more, _ := filepath.Glob("*/*.go")
	srcs := map[string]string{}
	for _, f := range append(files, more...) {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		srcs[f] = string(src)
	}
	return srcs
}

// findExcerpt names the module's file that holds the block, or "".
func findExcerpt(t *testing.T, b goBlock) string {
	t.Helper()
	for f, src := range sources(t) {
		if excerptOf(codeLines(b.text), codeLines(src)) {
			return f
		}
	}
	return ""
}

// isModuleFile says whether the block is one of the module's files, verbatim.
func isModuleFile(t *testing.T, b goBlock) bool {
	t.Helper()
	for _, src := range sources(t) {
		if src == b.text {
			return true
		}
	}
	return false
}

func TestEveryGoBlockOfTheToolsPageBuildsAgainstTheAPI(t *testing.T) {
	page, err := os.ReadFile(toolsDoc)
	if err != nil {
		t.Fatal(err)
	}
	var whole []goBlock
	blocks := goBlocks(string(page))
	if len(blocks) == 0 {
		t.Fatal("docs/tools.md has no Go block: the fence pattern no longer matches the page")
	}
	for _, b := range blocks {
		if isWholeFile(b.text) && !isModuleFile(t, b) {
			whole = append(whole, b)
		} else if !isWholeFile(b.text) && findExcerpt(t, b) == "" {
			t.Errorf("docs/tools.md:%d: this block is no excerpt of examples/customtool's code:\n%s", b.line, b.text)
		}
	}
	if len(whole) == 0 {
		t.Fatal("docs/tools.md has no whole-file Go block")
	}
	if err := vetWholeFiles(t, whole); err != nil {
		t.Fatal(err)
	}
	// The page shows the ticket tool as the example has it, whole.
	ticket, err := os.ReadFile(filepath.Join("tickets", "ticket.go"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), "```go\n"+string(ticket)+"```\n") {
		t.Error("docs/tools.md does not show tickets/ticket.go as it is")
	}
}

// TestADocBlockThatNamesNoSuchAPIFailsTheCheck attacks the check itself: a
// whole file and an excerpt that each name a field the API lacks.
func TestADocBlockThatNamesNoSuchAPIFailsTheCheck(t *testing.T) {
	bogus := goBlock{line: 1, text: "package bogus\n\nimport \"github.com/agentrun/agentrun/api\"\n\nvar _ = api.AgentStep{ExternalID: \"T-1\"}\n"}
	if err := vetWholeFiles(t, []goBlock{bogus}); err == nil || !strings.Contains(err.Error(), "ExternalID") {
		t.Fatalf("a whole file naming api.AgentStep.ExternalID passed: %v", err)
	}
	if f := findExcerpt(t, goBlock{line: 1, text: "reg, err := agents.Builtin(acc)\nreg.Add(releaseNote{acc: acc}, tools.AlwaysAsk)\n"}); f != "" {
		t.Fatalf("an excerpt of code the example no longer has matched %s", f)
	}
	if f := findExcerpt(t, goBlock{line: 1, text: "exts = append(exts, agents.Extension{\n...\nreturn exts, nil\n"}); f != "agent.go" {
		t.Fatalf("a true excerpt with a gap matched %q, want agent.go", f)
	}
}

// saTypes maps the SDK's typed-key constructors to the type names the
// temporal CLI takes.
var saTypes = map[string]string{"Keyword": "Keyword", "String": "Text", "Int64": "Int", "Float64": "Double",
	"Bool": "Bool", "Time": "Datetime", "KeywordList": "KeywordList"}

var saKey = regexp.MustCompile(`temporal\.NewSearchAttributeKey(\w+)\("(\w+)"\)`)

func TestTheToolsPageRegistersEverySearchAttributeTheAPIDeclares(t *testing.T) {
	page, err := os.ReadFile(toolsDoc)
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob("../../api/*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("list api: %v", err)
	}
	declared := 0
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range saKey.FindAllStringSubmatch(string(src), -1) {
			typ, ok := saTypes[m[1]]
			if !ok {
				t.Fatalf("%s: search attribute %s of unknown type %s", f, m[2], m[1])
			}
			declared++
			for _, want := range []string{"--search-attribute " + m[2] + "=" + typ, "create --name " + m[2] + " --type " + typ + "\n"} {
				if !strings.Contains(string(page), want) {
					t.Errorf("docs/tools.md lacks %q", want)
				}
			}
		}
	}
	if declared == 0 {
		t.Fatal("api declares no search attribute: the pattern no longer matches")
	}
}
