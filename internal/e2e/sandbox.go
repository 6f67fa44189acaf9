package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/agentrun/agentrun/api"
	ghapi "github.com/agentrun/agentrun/github"
	"github.com/agentrun/agentrun/internal/ghsandbox"
	"github.com/agentrun/agentrun/internal/testkit"
)

// The pull request every run reviews: the default fixture's PR with findings.
const (
	RepoOwner = "acme"
	RepoName  = "widgets"
	PullRepo  = RepoOwner + "/" + RepoName
	PullNum   = 1
)

// sandboxCallTimeout bounds one call to the sandbox's control API.
const sandboxCallTimeout = 10 * time.Second

// Sandbox is the fake GitHub running as its own process (cmd/ghsandbox).
type Sandbox struct {
	proc *Process
	base string
	http *http.Client
	// gh reads comments the way a GitHub user would, through go-github.
	gh *github.Client
}

// StartSandbox starts the sandbox with the default fixture and waits until it answers.
func StartSandbox(t testing.TB, binary string) *Sandbox {
	t.Helper()
	return StartSandboxWith(t, binary, nil)
}

// StartSandboxWith is StartSandbox with more of the sandbox's environment,
// e.g. SANDBOX_FIXTURE.
func StartSandboxWith(t testing.TB, binary string, env map[string]string) *Sandbox {
	t.Helper()
	addr := testkit.FreeAddress(t)
	procEnv := map[string]string{"SANDBOX_ADDR": addr}
	maps.Copy(procEnv, env)
	proc := StartProcess(t, ProcessSpec{
		Name:   "ghsandbox",
		Binary: binary,
		Env:    procEnv,
	})
	s := &Sandbox{proc: proc, base: "http://" + addr, http: &http.Client{Timeout: sandboxCallTimeout}}
	gh, err := ghapi.NewClient(s.APIURL(), "e2e-reader")
	if err != nil {
		t.Fatalf("go-github client for the sandbox: %v", err)
	}
	s.gh = gh
	proc.waitAnswering(t, s.http, s.base+"/_sandbox/faults", "the sandbox")
	return s
}

// APIURL is what GITHUB_API_URL points at.
func (s *Sandbox) APIURL() string { return s.base + "/" }

// AddFaults queues faults; each applies to the next requests of its op.
func (s *Sandbox) AddFaults(t testing.TB, faults ...ghsandbox.Fault) {
	t.Helper()
	body, err := json.Marshal(faults)
	if err != nil {
		t.Fatalf("encode faults: %v", err)
	}
	resp, err := s.http.Post(s.base+"/_sandbox/faults", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatalf("add sandbox faults: %v", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		msg, _ := io.ReadAll(resp.Body)
		t.Fatalf("add sandbox faults %s: %s %s", body, resp.Status, msg)
	}
}

// Faults lists the faults still queued, with the uses they have left.
func (s *Sandbox) Faults(t testing.TB) []ghsandbox.Fault {
	t.Helper()
	var faults []ghsandbox.Fault
	s.getJSON(t, "/_sandbox/faults", &faults)
	return faults
}

// Requests is the sandbox's request log, oldest first.
func (s *Sandbox) Requests(t testing.TB) []ghsandbox.RequestRecord {
	t.Helper()
	var log []ghsandbox.RequestRecord
	s.getJSON(t, "/_sandbox/requests", &log)
	return log
}

// RequestsFor keeps the log entries of one operation, oldest first.
func RequestsFor(log []ghsandbox.RequestRecord, op string) []ghsandbox.RequestRecord {
	var out []ghsandbox.RequestRecord
	for _, r := range log {
		if r.Op == op {
			out = append(out, r)
		}
	}
	return out
}

func (s *Sandbox) getJSON(t testing.TB, path string, into any) {
	t.Helper()
	resp, err := s.http.Get(s.base + path)
	if err != nil {
		t.Fatalf("GET sandbox %s: %v", path, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET sandbox %s: %s", path, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(into); err != nil {
		t.Fatalf("decode sandbox %s: %v", path, err)
	}
}

// Comments reads every comment on the pull request under review, through
// go-github as a GitHub user would. It is a list_comments request like the
// agent's, so a test must not read while a list_comments fault is queued.
func (s *Sandbox) Comments(t testing.TB) []*github.IssueComment {
	t.Helper()
	return s.comments(t, PullNum)
}

// comments reads every comment on the issue or pull request numbered pull.
func (s *Sandbox) comments(t testing.TB, pull int) []*github.IssueComment {
	t.Helper()
	return listAll(t, fmt.Sprintf("the comments on %s#%d", PullRepo, pull), func(ctx context.Context, page github.ListOptions) ([]*github.IssueComment, *github.Response, error) {
		return s.gh.Issues.ListComments(ctx, RepoOwner, RepoName, pull, &github.IssueListCommentsOptions{ListOptions: page})
	})
}

// listAll reads every page of a go-github list, each request bounded by
// sandboxCallTimeout, and fails the test if one fails; what names the list.
func listAll[T any](t testing.TB, what string, list func(context.Context, github.ListOptions) ([]T, *github.Response, error)) []T {
	t.Helper()
	var all []T
	page := github.ListOptions{PerPage: 100}
	for {
		ctx, cancel := context.WithTimeout(context.Background(), sandboxCallTimeout)
		items, resp, err := list(ctx, page)
		cancel()
		if err != nil {
			t.Fatalf("list %s: %v", what, err)
		}
		all = append(all, items...)
		if resp.NextPage == 0 {
			return all
		}
		page.Page = resp.NextPage
	}
}

// Posted groups the agent's comments (those carrying an operation marker)
// by the run that posted them.
type Posted map[string][]*github.IssueComment

// PostedComments reads the pull request's comments and groups the marked ones by run.
func (s *Sandbox) PostedComments(t testing.TB) Posted {
	t.Helper()
	posted := Posted{}
	for _, c := range s.Comments(t) {
		key, ok := OperationKeyOf(c.GetBody())
		if !ok {
			continue
		}
		posted[RunIDOfKey(key)] = append(posted[RunIDOfKey(key)], c)
	}
	return posted
}

// Total counts every marked comment.
func (p Posted) Total() int {
	n := 0
	for _, cs := range p {
		n += len(cs)
	}
	return n
}

// Duplicates counts the comments beyond the first of each operation key.
func (p Posted) Duplicates() int {
	perKey := map[string]int{}
	for _, cs := range p {
		for _, c := range cs {
			key, _ := OperationKeyOf(c.GetBody())
			perKey[key]++
		}
	}
	dups := 0
	for _, n := range perKey {
		dups += n - 1
	}
	return dups
}

// markerPrefix is api.OperationMarker up to the key.
var markerPrefix = strings.TrimSuffix(api.OperationMarker(""), " -->")

// OperationKeyOf finds the operationKey in a comment's marker.
func OperationKeyOf(body string) (string, bool) {
	_, rest, ok := strings.Cut(body, markerPrefix)
	if !ok {
		return "", false
	}
	key, _, ok := strings.Cut(rest, " -->")
	return key, ok && key != ""
}

// RunIDOfKey is the run part of an operationKey ("<runID>:<step sequence>").
func RunIDOfKey(key string) string {
	if i := strings.LastIndexByte(key, ':'); i > 0 {
		return key[:i]
	}
	return key
}
