package ghtools

import (
	"encoding/json"
	"fmt"

	"github.com/agentrun/agentrun/api"
)

// leftOutRoom is what a listing keeps of its bound for the left-out files:
// their names (at most maxLeftOutNameBytes), count, bound and reason.
const leftOutRoom = 24 << 10

// maxLeftOutNameBytes bounds the left-out names together, as JSON: fifty
// names of GitHub's longest paths would not fit in leftOutRoom.
const maxLeftOutNameBytes = 16 << 10

// withinReadBound keeps files, in order, while their listing as JSON fits in
// bound, and names the rest in LeftOut. A listing that fits whole is
// returned whole; one that does not keeps leftOutRoom of the bound for
// LeftOut, so the result never exceeds bound and is never cut as text.
func withinReadBound(files []api.PullRequestFile, bound int) api.PullRequestFiles {
	sizes := make([]int, len(files))
	total := len(`{"files":[]}`)
	for i, f := range files {
		sizes[i] = encodedLen(f) + 1 // the comma
		total += sizes[i]
	}
	if total <= bound {
		return api.PullRequestFiles{Files: files}
	}
	used, kept := len(`{"files":[]}`), 0
	for kept < len(files) && used+sizes[kept] <= bound-leftOutRoom {
		used += sizes[kept]
		kept++
	}
	left := &api.LeftOutFiles{
		Count:      len(files) - kept,
		Names:      []string{},
		BoundBytes: bound,
		Reason: fmt.Sprintf("the listing reached this worker's read bound of %d KiB after %d of %d files; the %d files after them were left out of it",
			bound>>10, kept, len(files), len(files)-kept),
	}
	nameBytes := 0
	for _, f := range files[kept:] {
		n := encodedLen(f.Filename) + 1
		if len(left.Names) == api.MaxLeftOutNames || nameBytes+n > maxLeftOutNameBytes {
			break
		}
		nameBytes += n
		left.Names = append(left.Names, f.Filename)
	}
	return api.PullRequestFiles{Files: files[:kept], LeftOut: left}
}

// encodedLen is v's length as JSON; v is a file or a name, whose encoding
// cannot fail.
func encodedLen(v any) int {
	raw, _ := json.Marshal(v)
	return len(raw)
}
