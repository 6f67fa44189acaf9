// Package diff reads the unified diff hunks GitHub puts in a changed file's
// patch field: which lines each side shows, and how many lines change.
package ghsandbox

import (
	"strconv"
	"strings"
)

// Lines is what of a file a patch shows: the line numbers on each side
// and how many positions a comment can be put at.
type Lines struct {
	left, right map[int]bool
	// Positions counts the lines below the first hunk header, later hunk
	// headers included, as GitHub counts a review comment's position.
	Positions int
}

// Has reports whether line is shown on side (LEFT or RIGHT; empty is RIGHT).
func (d Lines) Has(side string, line int) bool {
	switch side {
	case "", "RIGHT":
		return d.right[line]
	case "LEFT":
		return d.left[line]
	}
	return false
}

// ParseLines reads the hunks of a unified diff without file headers, as
// GitHub's patch field holds them.
func ParseLines(patch string) Lines {
	d := Lines{left: map[int]bool{}, right: map[int]bool{}}
	oldLine, newLine, inHunk := 0, 0, false
	for _, line := range strings.Split(patch, "\n") {
		if strings.HasPrefix(line, "@@") {
			var ok bool
			if oldLine, newLine, ok = hunkStarts(line); !ok {
				inHunk = false
				continue
			}
			if inHunk {
				d.Positions++
			}
			inHunk = true
			continue
		}
		if !inHunk {
			continue
		}
		d.Positions++
		switch {
		case strings.HasPrefix(line, "+"):
			d.right[newLine] = true
			newLine++
		case strings.HasPrefix(line, "-"):
			d.left[oldLine] = true
			oldLine++
		case strings.HasPrefix(line, `\`): // "\ No newline at end of file"
		default:
			d.left[oldLine], d.right[newLine] = true, true
			oldLine++
			newLine++
		}
	}
	return d
}

// hunkStarts reads the first old and new line of "@@ -a[,b] +c[,d] @@".
func hunkStarts(header string) (int, int, bool) {
	fields := strings.Fields(header)
	if len(fields) < 3 || !strings.HasPrefix(fields[1], "-") || !strings.HasPrefix(fields[2], "+") {
		return 0, 0, false
	}
	start := func(f string) (int, bool) {
		n, err := strconv.Atoi(strings.SplitN(f[1:], ",", 2)[0])
		return n, err == nil && n >= 0
	}
	oldStart, ok1 := start(fields[1])
	newStart, ok2 := start(fields[2])
	return oldStart, newStart, ok1 && ok2
}

// CountLines counts the added and removed lines of unified diff hunks.
func CountLines(patch string) (additions, deletions int) {
	for _, line := range strings.Split(patch, "\n") {
		switch {
		case strings.HasPrefix(line, "@@"):
		case strings.HasPrefix(line, "+"):
			additions++
		case strings.HasPrefix(line, "-"):
			deletions++
		}
	}
	return additions, deletions
}
