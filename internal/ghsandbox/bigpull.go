package ghsandbox

import (
	"fmt"
	"strings"
)

// BigPull is the pull request AddBigPull adds to acme/widgets.
const BigPull = 77

// BigPullFiles is how many files BigPull changes: as many as GitHub's file
// listing answers at most.
const BigPullFiles = 3000

// bigPullOwnFiles are BigPull's first files, the project's own; the rest
// are a vendored library.
const bigPullOwnFiles = 2

// AddBigPull adds to the default fixture's first repository a pull request
// that vendors a library: 3,000 files and about 8.5 MB of patches, far past
// what one read gives a model. Its first files are the project's own and
// hold a TODO, so a review of what fit has something to say. The files are
// generated here, not stored: the same every time, and no blob in the tree.
func AddBigPull(f *Fixture) {
	pull := f.Repos[0].Pulls[0]
	pull.Number, pull.Title, pull.Body = BigPull, "Vendor the widget codec", "Vendors github.com/example/codec and uses it."
	pull.HeadRef, pull.Comments = "feature/vendor-codec", nil
	pull.Files = make([]FixtureFile, 0, BigPullFiles)
	pull.Files = append(pull.Files,
		FixtureFile{Filename: "codec.go", Status: "modified", Patch: "@@ -1,3 +1,5 @@\n package widgets\n \n-// Codec is hand-written.\n+import \"github.com/example/codec\"\n+\n+// TODO: drop the old codec once every caller moved\n+var Codec = codec.New()"},
		FixtureFile{Filename: "codec_test.go", Status: "modified", Patch: "@@ -1,2 +1,3 @@\n package widgets\n \n+// The codec round-trips every widget.\n"},
	)
	for i := range BigPullFiles - bigPullOwnFiles {
		pull.Files = append(pull.Files, FixtureFile{
			Filename: fmt.Sprintf("vendor/github.com/example/codec/gen/table%04d.go", i),
			Status:   "added",
			Patch:    vendoredPatch(i),
		})
	}
	f.Repos[0].Pulls = append(f.Repos[0].Pulls, pull)
}

// vendoredPatch is the patch of the i-th generated file: 2,830 bytes or so,
// 8.5 MB over the pull request.
func vendoredPatch(i int) string {
	const lines = 64
	var b strings.Builder
	fmt.Fprintf(&b, "@@ -0,0 +1,%d @@\n+package gen\n+\n", lines)
	fmt.Fprintf(&b, "+// table%04d is generated; do not edit.\n", i)
	fmt.Fprintf(&b, "+var table%04d = [...]uint32{\n", i)
	for j := range lines - 5 {
		fmt.Fprintf(&b, "+\t0x%08x, 0x%08x, 0x%08x, // %04d\n", uint32(i*7919+j), uint32(j*104729+i), uint32(i^j), j)
	}
	b.WriteString("+}")
	return b.String()
}
