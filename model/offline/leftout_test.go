package offline

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
)

// leftOutListing is the findings fixture's files as a listing that left
// 2,950 files out past the read bound.
func leftOutListing(fx pullRequestFixture) api.PullRequestFiles {
	return api.PullRequestFiles{Files: fx.Files, LeftOut: &api.LeftOutFiles{
		Count: 2950, Names: []string{"vendor/a.go", "vendor/`b`.go"}, BoundBytes: api.MaxToolResultBytes,
		Reason: "the listing reached this worker's read bound of 384 KiB after 12 of 2962 files; the 2950 files after them were left out of it",
	}}
}

func TestReviewOfAListingThatLeftFilesOutReviewsWhatItReadAndNamesTheRest(t *testing.T) {
	d := newDialogue(t, "Review pull request acme/widgets#77.")
	fx := loadFixture(t, "findings")
	first := d.next()
	d.answer(first.ToolCalls[0], jsonText(t, fx.PullRequest))
	d.answer(first.ToolCalls[1], jsonText(t, leftOutListing(fx)))

	second := d.next()

	require.Empty(t, second.Final, "a listing that left files out is no failure")
	require.Len(t, second.ToolCalls, 1)
	var args struct{ Body string }
	require.NoError(t, json.Unmarshal(second.ToolCalls[0].Arguments, &args))
	require.Contains(t, args.Body, "**12 findings**", "the files it read are reviewed, file by file")
	require.Contains(t, args.Body, "- `web/app.js` line 41: leftover debug output (`console.log(`)")
	require.Contains(t, args.Body, "\n\nLeft out 2,950 files past the 384 KiB read bound, not reviewed: `vendor/a.go`, ``vendor/`b`.go`` and 2,948 more.\n")

	d.answer(second.ToolCalls[0], `{"commentId":12,"alreadyExisted":false}`)
	last := d.next()
	require.False(t, last.Undone)
	require.Equal(t, "Posted the review of acme/widgets#77 (12 findings, 2,950 files left out) as comment 12.", last.Final)
}

func TestListingCutAsTextIsToldAsACutNotAFailureAndTheReviewIsUndone(t *testing.T) {
	d := newDialogue(t, "Review pull request acme/widgets#77.")
	first := d.next()
	d.answer(first.ToolCalls[0], jsonText(t, loadFixture(t, "findings").PullRequest))
	d.answer(first.ToolCalls[1], `{"truncated":true,"bytes":861234,"sha256":"ab","note":"list_pull_request_files answered 861234 bytes","head":"[{\"filename\":"}`)

	last := d.next()

	require.Empty(t, last.ToolCalls)
	require.True(t, last.Undone, "nothing was reviewed, and the decision says so")
	require.NotContains(t, last.Final, "failed")
	require.Equal(t, "Could not review acme/widgets#77: the listing of its files (861234 bytes) was cut as text at the worker's bound of 384 KiB, so no file of it could be read", last.Final)
}

func TestReadThatFailedLeavesTheReviewUndone(t *testing.T) {
	d := newDialogue(t, "Review pull request acme/widgets#77.")
	first := d.next()
	d.answer(first.ToolCalls[0], jsonText(t, loadFixture(t, "findings").PullRequest))
	d.answer(first.ToolCalls[1], "failed: 502 Bad Gateway")

	last := d.next()

	require.True(t, last.Undone)
	require.True(t, strings.HasPrefix(last.Final, "Could not review acme/widgets#77: list_pull_request_files failed"))
}

func TestListingThatLeftEveryFileOutIsNotANothingToReview(t *testing.T) {
	d := newDialogue(t, "Review pull request acme/widgets#77.")
	fx := loadFixture(t, "findings")
	l := leftOutListing(fx)
	l.Files = []api.PullRequestFile{}
	first := d.next()
	d.answer(first.ToolCalls[0], jsonText(t, fx.PullRequest))
	d.answer(first.ToolCalls[1], jsonText(t, l))

	last := d.next()

	require.True(t, last.Undone)
	require.NotContains(t, last.Final, "Nothing to review")
	require.Contains(t, last.Final, "the 2950 files after them were left out")
}

func TestThousandsSeparatesCountsAsPeopleReadThem(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 2950: "2,950", 1234567: "1,234,567"} {
		require.Equal(t, want, thousands(n))
	}
}

func TestFilesWithoutTheirPatchAreOneFindingNamingTheFirstOnes(t *testing.T) {
	var files []api.PullRequestFile
	for i := range 377 {
		files = append(files, api.PullRequestFile{Filename: fmt.Sprintf("vendor/t%03d.go", i), Status: "added", Additions: 60, PatchOmitted: true})
	}

	review, err := reviewFiles(context.Background(), api.PullRequest{}, files)

	require.NoError(t, err)
	require.Len(t, review.Findings, 2, "one about the patches, one about the size")
	require.Equal(t, 377, review.Unreviewed)
	require.Contains(t, review.commentBody("acme/widgets#77", ""),
		"- 377 files listed without their patch, the pull request's patches together being too large; not reviewed: "+
			"`vendor/t000.go`, `vendor/t001.go`, `vendor/t002.go`, `vendor/t003.go`, `vendor/t004.go`, `vendor/t005.go`, "+
			"`vendor/t006.go`, `vendor/t007.go`, `vendor/t008.go`, `vendor/t009.go` and 367 more.\n")
}

func TestFilesGitHubDidNotListAreCountedAsNotReviewed(t *testing.T) {
	d := newDialogue(t, "Review pull request acme/widgets#77.")
	fx := loadFixture(t, "findings")
	l := leftOutListing(fx)
	fx.PullRequest.ChangedFiles = len(l.Files) + l.LeftOut.Count + 500
	first := d.next()
	d.answer(first.ToolCalls[0], jsonText(t, fx.PullRequest))
	d.answer(first.ToolCalls[1], jsonText(t, l))

	second := d.next()

	var args struct{ Body string }
	require.NoError(t, json.Unmarshal(second.ToolCalls[0].Arguments, &args))
	require.Contains(t, args.Body, "\n\nGitHub did not list 500 more changed files (it lists at most 3,000 of a pull request's files); not reviewed.\n")
}
