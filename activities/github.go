package activities

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/google/go-github/v62/github"

	"github.com/agentrun/agentrun/api"
	ghapi "github.com/agentrun/agentrun/github"
)

// maxPatchBytes bounds one file's patch, so that a single huge file cannot
// crowd the rest of the pull request out of the model's context.
const maxPatchBytes = 16 << 10

// maxTotalPatchBytes bounds the patches of one listing together: Temporal
// refuses payloads over 2 MiB, and the conversation the listing joins must
// stay far below that.
const maxTotalPatchBytes = 256 << 10

// GetPullRequest reads the pull request under review.
func (a *Activities) GetPullRequest(ctx context.Context, t api.Target) (api.PullRequest, error) {
	gh, err := a.clientFor("get pull request "+targetRef(t), t)
	if err != nil {
		return api.PullRequest{}, err
	}
	pr, _, err := gh.PullRequests.Get(ctx, t.Owner, t.Repo, t.PullNumber)
	if err != nil {
		return api.PullRequest{}, ghapi.ClassifyError("get pull request "+targetRef(t), err)
	}
	return api.PullRequest{
		Number:       pr.GetNumber(),
		Title:        pr.GetTitle(),
		Body:         pr.GetBody(),
		Author:       pr.GetUser().GetLogin(),
		State:        pr.GetState(),
		HeadRef:      pr.GetHead().GetRef(),
		BaseRef:      pr.GetBase().GetRef(),
		HeadSHA:      pr.GetHead().GetSHA(),
		Additions:    pr.GetAdditions(),
		Deletions:    pr.GetDeletions(),
		ChangedFiles: pr.GetChangedFiles(),
		HTMLURL:      pr.GetHTMLURL(),
	}, nil
}

// ListPullRequestFiles lists every file the pull request changes, across all
// pages. Patches share one budget, maxTotalPatchBytes: once it is spent, the
// remaining files come without their patch (PatchOmitted), so that a pull
// request of hundreds of files still fits in one activity result.
func (a *Activities) ListPullRequestFiles(ctx context.Context, t api.Target) ([]api.PullRequestFile, error) {
	gh, err := a.clientFor("list files of "+targetRef(t), t)
	if err != nil {
		return nil, err
	}
	files := []api.PullRequestFile{}
	opts := &github.ListOptions{PerPage: ghapi.PageSize}
	for {
		page, resp, err := gh.PullRequests.ListFiles(ctx, t.Owner, t.Repo, t.PullNumber, opts)
		if err != nil {
			return nil, ghapi.ClassifyError(fmt.Sprintf("list files of %s (page %d)", targetRef(t), max(opts.Page, 1)), err)
		}
		for _, f := range page {
			files = append(files, pullRequestFile(f))
		}
		if resp.NextPage == 0 {
			return withinPatchBudget(files, maxTotalPatchBytes), nil
		}
		opts.Page = resp.NextPage
	}
}

// withinPatchBudget keeps patches in file order while their total fits in
// budget and drops the patches that would overflow it. A later, smaller patch
// may still fit: a review of more files beats a review of fewer.
func withinPatchBudget(files []api.PullRequestFile, budget int) []api.PullRequestFile {
	used := 0
	for i := range files {
		f := &files[i]
		if used+len(f.Patch) <= budget {
			used += len(f.Patch)
			continue
		}
		if !f.PatchTruncated {
			describePatch(f)
		}
		f.Patch = ""
		f.PatchTruncated = false
		f.PatchOmitted = true
	}
	return files
}

func pullRequestFile(f *github.CommitFile) api.PullRequestFile {
	file := api.PullRequestFile{
		Filename:  f.GetFilename(),
		Status:    f.GetStatus(),
		Additions: f.GetAdditions(),
		Deletions: f.GetDeletions(),
		Patch:     f.GetPatch(),
	}
	if len(file.Patch) > maxPatchBytes {
		describePatch(&file)
		file.Patch = truncatePatch(file.Patch, maxPatchBytes)
		file.PatchTruncated = true
	}
	return file
}

// describePatch records the size and hash of a patch about to be cut or
// dropped, so that the model can say what it did not see.
func describePatch(f *api.PullRequestFile) {
	sum := sha256.Sum256([]byte(f.Patch))
	f.PatchBytes = len(f.Patch)
	f.PatchSHA256 = hex.EncodeToString(sum[:])
}

// truncatePatch cuts patch to at most limit bytes, at the end of a line when
// one ends in the second half of the budget, and never inside a UTF-8 rune.
func truncatePatch(patch string, limit int) string {
	cut := patch[:limit]
	if nl := strings.LastIndexByte(cut, '\n'); nl >= limit/2 {
		return cut[:nl+1]
	}
	for range utf8.UTFMax - 1 {
		if r, size := utf8.DecodeLastRuneInString(cut); r != utf8.RuneError || size != 1 {
			break
		}
		cut = cut[:len(cut)-1]
	}
	return cut
}

// githubClient gives each activity call its own go-github client over the
// configured transport. go-github remembers a rate limit in process memory and
// refuses requests locally until it resets by the wall clock; the workflow
// already waited the limit out on a durable timer, and another worker would
// not share that memory anyway, so every call asks GitHub afresh.
// clientFor is the GitHub client for an operation on t, refused before any
// request when t is outside the allowlist.
func (a *Activities) clientFor(op string, t api.Target) (*github.Client, error) {
	if err := a.checkAllowed(op, t); err != nil {
		return nil, err
	}
	return a.githubClient()
}

func (a *Activities) githubClient() (*github.Client, error) {
	if a.GitHub == nil {
		return nil, fmt.Errorf("no GitHub client configured")
	}
	c := github.NewClient(a.GitHub.Client())
	c.BaseURL = a.GitHub.BaseURL
	c.UploadURL = a.GitHub.UploadURL
	c.UserAgent = a.GitHub.UserAgent
	return c, nil
}

// targetRef names a pull request the way GitHub does: owner/repo#number.
func targetRef(t api.Target) string {
	return fmt.Sprintf("%s/%s#%d", t.Owner, t.Repo, t.PullNumber)
}
