package tooltest

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// Row is one action's line of a conformance table.
type Row struct {
	// Action names the action as the table shows it (Markdown).
	Action  string
	Results []Result
}

// Table is rows as a Markdown table: an action per row, a fault per
// column, each cell its Result.Cell ("—" for a fault the kit left out).
func Table(rows []Row) string {
	var b strings.Builder
	b.WriteString("| action | " + strings.Join(FaultNames(), " | ") + " |\n")
	b.WriteString("|---" + strings.Repeat("|---", len(matrix)) + "|\n")
	for _, r := range rows {
		cells := make([]string, len(matrix))
		for i, f := range matrix {
			cells[i] = "—"
			for _, res := range r.Results {
				if res.Fault == f.name {
					cells[i] = res.Cell()
				}
			}
		}
		fmt.Fprintf(&b, "| %s | %s |\n", r.Action, strings.Join(cells, " | "))
	}
	return b.String()
}

// KeepTable holds the section of the Markdown page at path between the
// markers named name to table: it fails t when they differ, naming
// regenerate, the command that rewrites it; with update it rewrites the
// section instead. The page must hold the markers
//
//	<!-- BEGIN tooltest NAME -->
//	<!-- END tooltest NAME -->
func KeepTable(t *testing.T, path, name, table, regenerate string, update bool) {
	t.Helper()
	page, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("tooltest: %v", err)
	}
	begin, end := "<!-- BEGIN tooltest "+name+" -->\n", "<!-- END tooltest "+name+" -->\n"
	start, stop := strings.Index(string(page), begin), strings.Index(string(page), end)
	if start < 0 || stop < start {
		t.Fatalf("tooltest: %s has no section between %q and %q", path, begin, end)
	}
	got := string(page[start+len(begin) : stop])
	if got == table {
		return
	}
	if !update {
		t.Fatalf("%s's conformance table %s is not what the kit saw; regenerate it with\n\t%s\nit says:\n%s\nthe kit saw:\n%s",
			path, name, regenerate, got, table)
	}
	text := string(page[:start+len(begin)]) + table + string(page[stop:])
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatalf("tooltest: %v", err)
	}
}
