package ghtools

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"

	gogithub "github.com/google/go-github/v62/github"

	"github.com/agentrun/agentrun/api"
	ghapi "github.com/agentrun/agentrun/github"
	"github.com/agentrun/agentrun/internal/redact"
	"github.com/agentrun/agentrun/tools"
)

// maxPatchBytes bounds one file's patch, so that a single huge file cannot
// crowd the rest of the pull request out of the model's context.
const maxPatchBytes = 16 << 10

// maxTotalPatchBytes bounds the patches of one listing together: Temporal
// refuses payloads over 2 MiB, and the conversation the listing joins must
// stay far below that.
const maxTotalPatchBytes = 256 << 10

var noArguments = json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`)

// readTool is a tool that reads the run's pull request with one of the
// Read functions (which the activities call too) and gives it to the model.
type readTool[T any] struct {
	acc  Access
	spec api.ToolSpec
	read func(ctx context.Context, acc Access, t api.Target) (T, error)
	// safe is what the step shows of the result; nil shows it redacted.
	safe func(T) json.RawMessage
}

func (r readTool[T]) Spec() api.ToolSpec { return r.spec }

func (r readTool[T]) Execute(ctx context.Context, call tools.Call) (api.ToolOutput, error) {
	v, err := r.read(ctx, r.acc, call.Target)
	if err != nil {
		return api.ToolOutput{}, err
	}
	var safe json.RawMessage
	if r.safe != nil {
		safe = r.safe(v)
	}
	return contentOf(v, safe)
}

// NewGetPullRequest is get_pull_request: the run's pull request.
func NewGetPullRequest(acc Access) tools.Tool {
	return readTool[api.PullRequest]{acc: acc, read: ReadPullRequest, spec: api.ToolSpec{
		Name:        api.ToolGetPullRequest,
		Description: "Read the pull request under review: title, body, author, branches and size.",
		Parameters:  noArguments,
		Words:       api.ToolWords{Noun: "pull request", Verb: "read", Past: "read"},
	}}
}

// ReadPullRequest reads the pull request t names.
func ReadPullRequest(ctx context.Context, acc Access, t api.Target) (api.PullRequest, error) {
	op := "get pull request " + targetRef(t)
	gh, err := acc.ClientFor(op, t)
	if err != nil {
		return api.PullRequest{}, err
	}
	pr, _, err := gh.PullRequests.Get(ctx, t.Owner, t.Repo, t.PullNumber)
	if err != nil {
		return api.PullRequest{}, ghapi.ClassifyError(op, err)
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

// NewListPullRequestFiles is list_pull_request_files. The step shows a
// summary of each file rather than its patch, and what was left out.
func NewListPullRequestFiles(acc Access) tools.Tool {
	return readTool[api.PullRequestFiles]{acc: acc, read: ReadPullRequestFiles, spec: api.ToolSpec{
		Name: api.ToolListPullRequestFiles,
		Description: "List the files the pull request changes, with their patches (a large patch is truncated; past a total budget, patches are omitted). " +
			"Past the read bound, files are left out: leftOut counts them, names the first ones and says why; say in your review what you did not read.",
		Parameters: noArguments,
		Words:      api.ToolWords{Noun: "changed files", Verb: "read", Past: "read"},
	}, safe: func(l api.PullRequestFiles) json.RawMessage {
		// LeftOut comes first: a step shows only the head of a long
		// listing, and what was left out is what a person must see.
		return redact.JSON(struct {
			LeftOut *api.LeftOutFiles    `json:"leftOut,omitempty"`
			Range   *api.ReviewRange     `json:"range,omitempty"`
			Files   []redact.FileSummary `json:"files"`
		}{l.LeftOut, l.Range, redact.FileSummaries(l.Files)})
	}}
}

// ReadPullRequestFiles lists every file the pull request changes, across all
// pages, within the read bound. Patches share one budget, maxTotalPatchBytes:
// once it is spent, the remaining files come without their patch
// (PatchOmitted). Past the read bound (withinReadBound), files are left out
// and named, so that a pull request of thousands of files still gets a
// listing that passes whole, rather than one cut as text.
func ReadPullRequestFiles(ctx context.Context, acc Access, t api.Target) (api.PullRequestFiles, error) {
	gh, err := acc.ClientFor("list files of "+targetRef(t), t)
	if err != nil {
		return api.PullRequestFiles{}, err
	}
	if t.ReviewedHead == "" || t.Head == "" || strings.EqualFold(t.ReviewedHead, t.Head) {
		return readAllFiles(ctx, gh, t)
	}
	return readSince(ctx, gh, t)
}

// readSince reads only the change since the last reviewed head (the
// compare API), or, when that head is no longer an ancestor of the one
// under review (a force-push, a rebase, or a commit GitHub no longer has),
// the whole pull request, saying so.
func readSince(ctx context.Context, gh *gogithub.Client, t api.Target) (api.PullRequestFiles, error) {
	since, head := t.ReviewedHead, t.Head
	cmp, _, err := gh.Repositories.CompareCommits(ctx, t.Owner, t.Repo, since, head, &gogithub.ListOptions{PerPage: ghapi.PageSize})
	var rejected *gogithub.ErrorResponse
	switch {
	case err == nil && cmp.GetStatus() == "ahead":
		files := make([]api.PullRequestFile, 0, len(cmp.Files))
		for _, f := range cmp.Files {
			files = append(files, pullRequestFile(f))
		}
		listing := withinReadBound(withinPatchBudget(files, maxTotalPatchBytes), api.MaxToolResultBytes)
		listing.Range = &api.ReviewRange{Since: since, Head: head, Draft: t.ReviewedDraft, Commits: cmp.GetTotalCommits(),
			Reason: fmt.Sprintf("only the change since %s, %s: %d %s", short(since), lastReviewed(t), cmp.GetTotalCommits(), plural(cmp.GetTotalCommits(), "commit", "commits"))}
		return listing, nil
	case err == nil, errors.As(err, &rejected) && rejected.Response != nil && rejected.Response.StatusCode == http.StatusNotFound:
		listing, err := readAllFiles(ctx, gh, t)
		if err != nil {
			return listing, err
		}
		listing.Range = &api.ReviewRange{Since: since, Head: head, Draft: t.ReviewedDraft, Full: true,
			Reason: fmt.Sprintf("full review: %s, %s, is no longer an ancestor of %s (a force-push or a rebase)", short(since), lastReviewed(t), short(head))}
		return listing, nil
	}
	return api.PullRequestFiles{}, ghapi.ClassifyError(fmt.Sprintf("compare %s...%s of %s", short(since), short(head), targetRef(t)), err)
}

// lastReviewed says what the review of t.ReviewedHead became: posted, or
// superseded while it waited for a person (its draft stays on its run).
func lastReviewed(t api.Target) string {
	if t.ReviewedDraft != "" {
		return "whose review (run " + t.ReviewedDraft + ") still waited for approval when this push came"
	}
	return "the last head reviewed and posted"
}

func short(sha string) string { return sha[:min(len(sha), 7)] }

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// readAllFiles lists every file of the pull request.
func readAllFiles(ctx context.Context, gh *gogithub.Client, t api.Target) (api.PullRequestFiles, error) {
	files := []api.PullRequestFile{}
	opts := &gogithub.ListOptions{PerPage: ghapi.PageSize}
	for {
		page, resp, err := gh.PullRequests.ListFiles(ctx, t.Owner, t.Repo, t.PullNumber, opts)
		if err != nil {
			return api.PullRequestFiles{}, ghapi.ClassifyError(fmt.Sprintf("list files of %s (page %d)", targetRef(t), max(opts.Page, 1)), err)
		}
		for _, f := range page {
			files = append(files, pullRequestFile(f))
		}
		if resp.NextPage == 0 {
			return withinReadBound(withinPatchBudget(files, maxTotalPatchBytes), api.MaxToolResultBytes), nil
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

func pullRequestFile(f *gogithub.CommitFile) api.PullRequestFile {
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

// contentOf is a read's output: v as the model reads it, and what the step
// shows (v redacted, unless safe says otherwise).
func contentOf(v any, safe json.RawMessage) (api.ToolOutput, error) {
	content, err := json.Marshal(v)
	if err != nil {
		return api.ToolOutput{}, fmt.Errorf("encode the result: %w", err)
	}
	if safe == nil {
		safe = redact.JSON(v)
	}
	return api.ToolOutput{Content: content, SafeOutput: safe}, nil
}

// targetRef names a pull request the way GitHub does: owner/repo#number.
func targetRef(t api.Target) string {
	return fmt.Sprintf("%s/%s#%d", t.Owner, t.Repo, t.PullNumber)
}
