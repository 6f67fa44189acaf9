// This file is the diff a page shows between two versions of an action:
// an approver's edit against the model's proposal, field by field, line by
// line, before they approve it and on the run's page afterwards.

package approvalsrv

import (
	"encoding/json"
	"sort"
	"strings"
)

// diffLine is one line of a diff: Op is ' ' (kept), '-' (only in the
// proposal) or '+' (only in the edit).
type diffLine struct {
	Op   string
	Text string
}

// fieldChange is one argument the edit changed.
type fieldChange struct {
	Name  string
	Lines []diffLine
}

// maxDiffLines bounds the lines compared line by line; longer texts show
// as all removed and all added.
const maxDiffLines = 1000

// lineDiff is the lines of a and b, a's removed and b's added, kept lines
// in between (a longest common subsequence).
func lineDiff(a, b string) []diffLine {
	x, y := strings.Split(a, "\n"), strings.Split(b, "\n")
	if len(x) > maxDiffLines || len(y) > maxDiffLines {
		var out []diffLine
		for _, l := range x {
			out = append(out, diffLine{"-", l})
		}
		for _, l := range y {
			out = append(out, diffLine{"+", l})
		}
		return out
	}
	// lcs[i][j] is the longest common subsequence of x[i:] and y[j:].
	lcs := make([][]int32, len(x)+1)
	for i := range lcs {
		lcs[i] = make([]int32, len(y)+1)
	}
	for i := len(x) - 1; i >= 0; i-- {
		for j := len(y) - 1; j >= 0; j-- {
			if x[i] == y[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var out []diffLine
	i, j := 0, 0
	for i < len(x) && j < len(y) {
		switch {
		case x[i] == y[j]:
			out = append(out, diffLine{" ", x[i]})
			i, j = i+1, j+1
		case lcs[i+1][j] >= lcs[i][j+1]:
			out = append(out, diffLine{"-", x[i]})
			i++
		default:
			out = append(out, diffLine{"+", y[j]})
			j++
		}
	}
	for ; i < len(x); i++ {
		out = append(out, diffLine{"-", x[i]})
	}
	for ; j < len(y); j++ {
		out = append(out, diffLine{"+", y[j]})
	}
	return out
}

// argsChanges are the arguments that differ between from and to (JSON
// objects), in name order: a string's lines, anything else's pretty JSON.
func argsChanges(from, to json.RawMessage) []fieldChange {
	var a, b map[string]json.RawMessage
	_ = json.Unmarshal(from, &a)
	_ = json.Unmarshal(to, &b)
	names := map[string]bool{}
	for n := range a {
		names[n] = true
	}
	for n := range b {
		names[n] = true
	}
	sorted := make([]string, 0, len(names))
	for n := range names {
		sorted = append(sorted, n)
	}
	sort.Strings(sorted)
	var changes []fieldChange
	for _, n := range sorted {
		if sameJSON(string(a[n]), string(b[n])) {
			continue
		}
		changes = append(changes, fieldChange{Name: n, Lines: lineDiff(argText(a[n]), argText(b[n]))})
	}
	return changes
}

// argText is an argument as a person reads it: a string as its text, an
// absent one as nothing, anything else as pretty JSON.
func argText(v json.RawMessage) string {
	if len(v) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(v, &s) == nil {
		return s
	}
	return prettyJSON(v)
}
