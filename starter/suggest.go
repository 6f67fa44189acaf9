package main

import "strings"

// maxSuggestDistance is the most edits a typo may be from a command and
// still be taken for it: two catches a dropped letter plus a slip, while
// keeping unrelated words ("launch") from looking like commands.
const maxSuggestDistance = 2

// nearestCommand is the command name closest to typed by edit distance
// (insertions, deletions, substitutions and swaps of neighbours, ignoring
// case), or "" when none is close enough to be what was meant. Ties go to
// the earlier name in names, so the answer never varies between runs.
func nearestCommand(typed string, names []string) string {
	typed = strings.ToLower(typed)
	best, bestDistance := "", maxSuggestDistance+1
	for _, name := range names {
		d := editDistance(typed, name)
		// A short word is a few edits from every short command; demand that
		// most of it survives.
		if d < bestDistance && d <= len(name)/2 {
			best, bestDistance = name, d
		}
	}
	return best
}

// editDistance is the optimal string alignment distance between a and b: a
// swap of two neighbouring letters, the commonest typo, counts as one edit.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	// d[i][j] is the distance between ra[:i] and rb[:j].
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}
