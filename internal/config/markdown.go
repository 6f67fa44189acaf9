package config

import (
	"regexp"
	"slices"
	"strings"
)

// documentedRow is a row of a docs table of settings: the variables in
// backticks in the first cell, the programs that read them in the second.
var documentedRow = regexp.MustCompile("^\\|([^|]*`[A-Z][A-Z0-9_]*`[^|]*)\\|([^|]*)\\|")

var backticked = regexp.MustCompile("`([A-Z][A-Z0-9_]*)`")

// DocumentedPrograms reads the settings table of a markdown page's section
// under heading (the README's "## Configuration"): for each variable, the
// programs its row says read it. A test holds it to the tables, so that the
// page never lists a variable no program reads nor leaves one out.
func DocumentedPrograms(markdown, heading string) map[string][]string {
	_, section, _ := strings.Cut(markdown, "\n"+heading+"\n")
	if next := strings.Index(section, "\n## "); next >= 0 {
		section = section[:next]
	}
	documented := make(map[string][]string)
	for _, line := range strings.Split(section, "\n") {
		row := documentedRow.FindStringSubmatch(line)
		if row == nil {
			continue
		}
		var programs []string
		for _, p := range strings.Split(row[2], ",") {
			programs = append(programs, strings.TrimSpace(p))
		}
		for _, name := range backticked.FindAllStringSubmatch(row[1], -1) {
			documented[name[1]] = append(documented[name[1]], programs...)
		}
	}
	return documented
}

// Undocumented compares a program's table with what a page documents: the
// table's variables the page does not say the program reads, and the
// variables the page says it reads that its table does not list.
func Undocumented(program string, vars []Var, documented map[string][]string) (missing, stale []string) {
	inTable := make(map[string]bool, len(vars))
	for _, v := range vars {
		inTable[v.Name] = true
		if !slices.Contains(documented[v.Name], program) {
			missing = append(missing, v.Name)
		}
	}
	for name, programs := range documented {
		if slices.Contains(programs, program) && !inTable[name] {
			stale = append(stale, name)
		}
	}
	slices.Sort(stale)
	return missing, stale
}
