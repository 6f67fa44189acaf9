package api

import "strconv"

// The contents the GitHub tools answer with and the permission check's
// input and output. Each is recorded in the history of every run that
// calls them, so its JSON is the wire.

// PullRequest is the result of get_pull_request.
type PullRequest struct {
	Number       int    `json:"number"`
	Title        string `json:"title"`
	Body         string `json:"body"`
	Author       string `json:"author"`
	State        string `json:"state"`
	HeadRef      string `json:"headRef"`
	BaseRef      string `json:"baseRef"`
	HeadSHA      string `json:"headSha"`
	Additions    int    `json:"additions"`
	Deletions    int    `json:"deletions"`
	ChangedFiles int    `json:"changedFiles"`
	HTMLURL      string `json:"htmlUrl"`
}

// PullRequestFile is one entry of list_pull_request_files. Patch may be
// truncated (one huge file) or omitted (the listing's patches together were
// too large); PatchBytes and PatchSHA256 then describe the original.
type PullRequestFile struct {
	Filename       string `json:"filename"`
	Status         string `json:"status"`
	Additions      int    `json:"additions"`
	Deletions      int    `json:"deletions"`
	Patch          string `json:"patch,omitempty"`
	PatchTruncated bool   `json:"patchTruncated,omitempty"`
	PatchOmitted   bool   `json:"patchOmitted,omitempty"`
	PatchBytes     int    `json:"patchBytes,omitempty"`
	PatchSHA256    string `json:"patchSha256,omitempty"`
}

// PullRequestFiles is the result of list_pull_request_files: the files it
// read, in GitHub's order, and, when the listing reached its bound, the
// ones it left out. LeftOut is the signal that the read was cut: a reader
// decides on it, never on any text of the result.
type PullRequestFiles struct {
	Files   []PullRequestFile `json:"files"`
	LeftOut *LeftOutFiles     `json:"leftOut,omitempty"`
	// Range, when set, says the listing is of a new push: only the change
	// since the last head agentrun reviewed and posted (Since), or, when
	// that head is no longer an ancestor, the whole pull request (Full).
	Range *ReviewRange `json:"range,omitempty"`
}

// ReviewRange is what part of a pull request a listing covers.
type ReviewRange struct {
	// Since is the last head reviewed; Head the one read. Draft is the run
	// whose review of Since was superseded before it was posted (its draft
	// stays on that run), empty when that review was posted.
	Since string `json:"since"`
	Head  string `json:"head"`
	Draft string `json:"draft,omitempty"`
	// Commits counts the commits since Since, when the listing is of them.
	Commits int `json:"commits,omitempty"`
	// Full: Since is no longer an ancestor of Head (a force-push or a
	// rebase), so the listing is the whole pull request; Reason says so.
	Full   bool   `json:"full,omitempty"`
	Reason string `json:"reason"`
}

// LeftOutFiles are the files a listing left out, and why. Names are the
// first of them in GitHub's order, at most MaxLeftOutNames; Count is all of
// them, so Count may exceed len(Names).
type LeftOutFiles struct {
	Count int      `json:"count"`
	Names []string `json:"names"`
	// BoundBytes is the read bound the listing reached: the files listed
	// take all of it but what the left-out names need.
	BoundBytes int `json:"boundBytes"`
	// Reason says the same for a model to read.
	Reason string `json:"reason"`
}

// MaxLeftOutNames bounds the names a listing gives of the files it left
// out: a pull request of thousands of files cannot grow the result.
const MaxLeftOutNames = 50

// MaxToolResultBytes bounds the Content of every tool result, whatever the
// tool (activities cut a longer one). Temporal refuses a payload over its
// blob size limit (2 MB by default, a warning from 512 KB) and the history
// keeps every result, so a server that answers 10 MB would fail the
// activity's completion on every retry and wedge the run. A tool that can
// cut its own result on meaningful boundaries (list_pull_request_files cuts
// on files) keeps within it, so that its result passes whole.
const MaxToolResultBytes = 384 << 10

// CommentResult tells which comment carries an operationKey's marker.
type CommentResult struct {
	CommentID int64  `json:"commentId"`
	HTMLURL   string `json:"htmlUrl,omitempty"`
	// AlreadyExisted is true when our own comment for the key was found and
	// nothing was created.
	AlreadyExisted bool `json:"alreadyExisted"`
	// Ignored lists look-alikes: comments carrying the key's marker that do
	// not prove the operation (another author, or another body).
	Ignored []IgnoredComment `json:"ignored,omitempty"`
}

// IgnoredComment is a look-alike of an action's effect, in any system: a
// thing that carries the operation's reference (a comment with its marker,
// a message with its nonce, a record with its key) but does not prove the
// operation, since anyone can write the reference (another author, another
// text). The run records each one a tool reports (ToolOutput.Ignored).
type IgnoredComment struct {
	// ID names the look-alike in its system: a comment ID, an issue
	// number, a message ID.
	ID string `json:"id,omitempty"`
	// Kind says what it is ("comment", "message"); empty reads as the
	// noun of the step's tool (ToolWords).
	Kind string `json:"kind,omitempty"`
	// CommentID is a GitHub comment's or issue's number, which ID carries
	// too: runs recorded before ID have only this.
	CommentID int64  `json:"commentId,omitempty"`
	Author    string `json:"author"`
	Why       string `json:"why"`
}

// Lookalike is IgnoredComment, by the name a tool of any system reads.
type Lookalike = IgnoredComment

// Name is the look-alike's ID, or its CommentID for a run recorded before ID.
func (c IgnoredComment) Name() string {
	if c.ID == "" && c.CommentID != 0 {
		return strconv.FormatInt(c.CommentID, 10)
	}
	return c.ID
}

// MaxIgnoredComments caps the look-alikes one result reports, so that a
// flood of them cannot grow an activity result without bound.
const MaxIgnoredComments = 10

// Reconciliation outcomes, in ToolReconciliation.Outcome.
const (
	ReconcileFound      = "found"
	ReconcileNotCreated = "not_created"
	ReconcileCannotTell = "cannot_tell"
)

// RepoPermissionInput is the input of ActivityCheckRepoPermission: what
// Login may do on Owner/Repo.
type RepoPermissionInput struct {
	Owner string `json:"owner"`
	Repo  string `json:"repo"`
	Login string `json:"login"`
}

// RepoPermission is a person's permission on a repository as GitHub names
// it: admin, maintain, write, triage, read or none.
type RepoPermission struct {
	Permission string `json:"permission"`
}
