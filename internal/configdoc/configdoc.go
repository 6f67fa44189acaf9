// Package configdoc keeps docs/configuration.md generated from the
// programs' settings tables, the tables each program's --help prints. Each
// program's section lies between two markers; a test in the program's own
// package (where its table is visible) calls Check, which fails when the
// section is not what the table renders, and rewrites it under -update:
//
//	go test ./worker ./starter ./approval ./internal/ghsandbox/cmd/ghsandbox -run TestConfigurationDocIsCurrent -update
package configdoc

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/agentrun/agentrun/internal/config"
	"github.com/agentrun/agentrun/internal/testkit/standalone"
)

// Page is the generated page, from the repository root.
const Page = "docs/configuration.md"

// RegenerateCommand is what Check's failures tell the reader to run.
const RegenerateCommand = "go test ./worker ./starter ./approval ./internal/ghsandbox/cmd/ghsandbox -run TestConfigurationDocIsCurrent -update"

var update = flag.Bool("update", false, "rewrite the program's section of "+Page+" from its settings table")

// Check fails t unless the page's section for program is exactly what vars
// render; with -update it rewrites the section (adding it at the end when
// the page has none) instead.
func Check(t *testing.T, program string, vars []config.Var) {
	t.Helper()
	root, err := standalone.RepoRoot()
	if err != nil {
		t.Fatalf("configdoc: %v", err)
	}
	path := filepath.Join(root, Page)
	want := Section(program, vars)
	if *update {
		if err := rewrite(path, program, want); err != nil {
			t.Fatalf("configdoc: %v", err)
		}
		return
	}
	page, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("configdoc: read %s: %v; regenerate it with\n\t%s", Page, err, RegenerateCommand)
	}
	got, ok := sectionOf(string(page), program)
	if !ok {
		t.Fatalf("%s has no section for %s; regenerate it with\n\t%s", Page, program, RegenerateCommand)
	}
	if got != want {
		t.Fatalf("%s is out of date with %s's settings table; regenerate it with\n\t%s\n%s",
			Page, program, RegenerateCommand, lineDiff(got, want))
	}
}

func begin(program string) string {
	return "<!-- BEGIN generated settings of " + program + ": edit the table in code, then run " + RegenerateCommand + " -->\n"
}

func end(program string) string { return "<!-- END generated settings of " + program + " -->\n" }

// Section is program's generated section, its markers included.
func Section(program string, vars []config.Var) string {
	var b strings.Builder
	b.WriteString(begin(program))
	b.WriteString("| variable | default | meaning |\n|---|---|---|\n")
	for _, v := range vars {
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", v.Name, cell(defaultText(v)), cell(v.Description))
	}
	b.WriteString(end(program))
	return b.String()
}

func defaultText(v config.Var) string {
	var text string
	switch {
	case v.Required && v.RequiredWhen == "":
		text = "required"
	case v.Required:
		text = "required " + v.RequiredWhen
	case v.Default != "":
		text = "`" + v.Default + "`"
	default:
		text = "(none)"
	}
	if v.Secret {
		text += "; secret, or a file named by `" + v.FileVar() + "`"
	}
	return text
}

func cell(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "|", `\|`), "\n", " ")
}

// sectionOf finds program's section in page, markers included.
func sectionOf(page, program string) (string, bool) {
	start := strings.Index(page, begin(program))
	if start < 0 {
		return "", false
	}
	stop := strings.Index(page[start:], end(program))
	if stop < 0 {
		return "", false
	}
	return page[start : start+stop+len(end(program))], true
}

// rewrite replaces program's section of the page at path. The test binaries
// of the four programs may run it at once, so it holds a lock on the page.
func rewrite(path, program, section string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		return fmt.Errorf("lock %s: %w", path, err)
	}
	page, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	text := string(page)
	if old, ok := sectionOf(text, program); ok {
		text = strings.Replace(text, old, section, 1)
	} else {
		text = strings.TrimRight(text, "\n") + "\n\n## " + program + "\n\n" + section
	}
	if err := f.Truncate(0); err != nil {
		return fmt.Errorf("truncate %s: %w", path, err)
	}
	if _, err := f.WriteAt([]byte(text), 0); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// lineDiff names the rows only the page has and those only the table
// renders, which is what a reader needs to see the change.
func lineDiff(page, table string) string {
	inPage := map[string]bool{}
	for _, l := range strings.Split(page, "\n") {
		inPage[l] = true
	}
	inTable := map[string]bool{}
	var b strings.Builder
	for _, l := range strings.Split(table, "\n") {
		inTable[l] = true
		if !inPage[l] {
			b.WriteString("+ " + l + "\n")
		}
	}
	for _, l := range strings.Split(page, "\n") {
		if !inTable[l] {
			b.WriteString("- " + l + "\n")
		}
	}
	if b.Len() == 0 {
		return "(the same rows, in another order)"
	}
	return "rows the table adds (+) and the page still has (-):\n" + b.String()
}
