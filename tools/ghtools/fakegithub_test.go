package ghtools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	gogithub "github.com/google/go-github/v62/github"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/agentrun/agentrun/api"
	ghapi "github.com/agentrun/agentrun/github"
	"github.com/agentrun/agentrun/internal/testkit"
	"github.com/agentrun/agentrun/tools"
	"github.com/agentrun/agentrun/tools/ghtools"
)

// The fake's operations, as its request log names them.
const (
	opListReviews  = "list reviews"
	opCreateReview = "create review"
	opListIssues   = "list issues"
	opCreateIssue  = "create issue"
	opGetIssue     = "get issue"
	opAddLabels    = "add labels"
	opRepoLabels   = "list repo labels"
)

const botLogin = "agentrun-bot"

var pr = api.Target{Owner: "acme", Repo: "widgets", PullNumber: 7}

// fakeGitHub answers the endpoints the actions use with GitHub's documented
// shapes, keeps what they create, and can lose a response: make the effect,
// then hang up or answer 502, as a proxy or a dying connection would.
type fakeGitHub struct {
	t   *testing.T
	srv *httptest.Server

	mu       sync.Mutex
	reviews  []*gogithub.PullRequestReview
	comments map[int64][]*gogithub.DraftReviewComment // by review ID
	issues   []*gogithub.Issue                        // issue number = index + 1
	prLabels []string
	// repoLabels are the repository's own labels.
	repoLabels []string
	requests   []string
	queries    map[string]string // the last query of each operation
	// lose says how the next answer of an operation is lost after its
	// effect: "hangup" or "502"; refuse answers an operation with a status
	// before it does anything.
	lose     map[string]string
	refuse   map[string]int
	pageSize int
	nextID   int64
}

func newFakeGitHub(t *testing.T) *fakeGitHub {
	f := &fakeGitHub{t: t, comments: map[int64][]*gogithub.DraftReviewComment{}, queries: map[string]string{},
		lose: map[string]string{}, refuse: map[string]int{}, pageSize: 100, nextID: 1000,
		repoLabels: []string{"area/api", "needs-tests", "bug"}}
	// Issue 7 is the run's pull request: GitHub lists it among the issues.
	for n := 1; n <= pr.PullNumber; n++ {
		f.issues = append(f.issues, &gogithub.Issue{Number: gogithub.Int(n), Title: gogithub.String(fmt.Sprintf("old %d", n)),
			User: user("someone"), Body: gogithub.String("")})
	}
	f.issues[pr.PullNumber-1].PullRequestLinks = &gogithub.PullRequestLinks{URL: gogithub.String("pulls/7")}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /repos/acme/widgets/pulls/7/reviews", f.listReviews)
	mux.HandleFunc("POST /repos/acme/widgets/pulls/7/reviews", f.createReview)
	mux.HandleFunc("GET /repos/acme/widgets/issues", f.listIssues)
	mux.HandleFunc("POST /repos/acme/widgets/issues", f.createIssue)
	mux.HandleFunc("GET /repos/acme/widgets/issues/7/labels", f.getIssue)
	mux.HandleFunc("POST /repos/acme/widgets/issues/7/labels", f.addLabels)
	mux.HandleFunc("GET /repos/acme/widgets/labels", f.listRepoLabels)
	f.srv = httptest.NewUnstartedServer(mux)
	f.srv.Listener.Close()
	f.srv.Listener = testkit.Listen(t)
	f.srv.Start()
	t.Cleanup(f.srv.Close)
	return f
}

func user(login string) *gogithub.User { return &gogithub.User{Login: gogithub.String(login)} }

// access is the worker's GitHub access over the real go-github client.
func (f *fakeGitHub) access() testAccess {
	gh, err := ghapi.NewClient(f.srv.URL+"/", "test-token")
	require.NoError(f.t, err)
	return testAccess{gh: gh, login: botLogin}
}

type testAccess struct {
	gh    *gogithub.Client
	login string
	// clientErr and loginErr, when set, are what ClientFor and BotLogin
	// answer instead.
	clientErr, loginErr error
}

func (a testAccess) ClientFor(string, api.Target) (*gogithub.Client, error) {
	if a.clientErr != nil {
		return nil, a.clientErr
	}
	return a.gh, nil
}

func (a testAccess) BotLogin(context.Context, *gogithub.Client, string) (string, error) {
	if a.loginErr != nil {
		return "", a.loginErr
	}
	return a.login, nil
}

func (f *fakeGitHub) count(op string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, r := range f.requests {
		if r == op {
			n++
		}
	}
	return n
}

// The test's side of the fake: the server's goroutines share its state.

func (f *fakeGitHub) setPageSize(n int) { f.mu.Lock(); f.pageSize = n; f.mu.Unlock() }

func (f *fakeGitHub) loseNext(op, how string) { f.mu.Lock(); f.lose[op] = how; f.mu.Unlock() }

func (f *fakeGitHub) refuseWith(op string, status int) {
	f.mu.Lock()
	f.refuse[op] = status
	f.mu.Unlock()
}

func (f *fakeGitHub) setLabels(labels ...string) { f.mu.Lock(); f.prLabels = labels; f.mu.Unlock() }

func (f *fakeGitHub) labels() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.prLabels)
}

func (f *fakeGitHub) reviewsNow() []*gogithub.PullRequestReview {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.reviews)
}

func (f *fakeGitHub) commentsOf(reviewID int64) []*gogithub.DraftReviewComment {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.comments[reviewID]
}

func (f *fakeGitHub) issuesNow() []*gogithub.Issue {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.issues)
}

func (f *fakeGitHub) query(op string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.queries[op]
}

func (f *fakeGitHub) total() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.requests)
}

// enter logs a request and says whether the fake refused it.
func (f *fakeGitHub) enter(w http.ResponseWriter, r *http.Request, op string) bool {
	f.mu.Lock()
	f.requests = append(f.requests, op)
	f.queries[op] = r.URL.RawQuery
	status := f.refuse[op]
	f.mu.Unlock()
	if status == 0 {
		return true
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = fmt.Fprintf(w, `{"message":"refused by the test (%d)","documentation_url":"https://docs.github.com/rest"}`, status)
	return false
}

// received logs a write and reads its request body into a T, unless the
// fake refused it or the body is not a T.
func received[T any](f *fakeGitHub, w http.ResponseWriter, r *http.Request, op string) (T, bool) {
	var req T
	if !f.enter(w, r, op) {
		return req, false
	}
	return req, assert.NoError(f.t, json.NewDecoder(r.Body).Decode(&req))
}

// answer writes v, unless the operation's answer is to be lost.
func (f *fakeGitHub) answer(w http.ResponseWriter, op string, status int, v any) {
	f.mu.Lock()
	lose := f.lose[op]
	delete(f.lose, op)
	f.mu.Unlock()
	switch lose {
	case "hangup":
		conn, _, err := w.(http.Hijacker).Hijack()
		if assert.NoError(f.t, err) {
			_ = conn.Close()
		}
		return
	case "502":
		w.WriteHeader(http.StatusBadGateway)
		_, _ = w.Write([]byte("<html>502 Bad Gateway</html>"))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	assert.NoError(f.t, json.NewEncoder(w).Encode(v))
}

// page serves one page of items and links the next as GitHub does.
func page[T any](f *fakeGitHub, w http.ResponseWriter, r *http.Request, items []T) []T {
	n, _ := strconv.Atoi(r.URL.Query().Get("page"))
	n = max(n, 1)
	from := min((n-1)*f.pageSize, len(items))
	to := min(from+f.pageSize, len(items))
	if to < len(items) {
		next := *r.URL
		q := next.Query()
		q.Set("page", strconv.Itoa(n+1))
		next.RawQuery = q.Encode()
		w.Header().Set("Link", fmt.Sprintf(`<%s%s>; rel="next"`, f.srv.URL, next.String()))
	}
	return items[from:to]
}

// list answers a listing with one page of what all returns; all runs
// under mu.
func list[T any](f *fakeGitHub, w http.ResponseWriter, r *http.Request, op string, all func() []T) {
	if !f.enter(w, r, op) {
		return
	}
	f.mu.Lock()
	items := page(f, w, r, all())
	f.mu.Unlock()
	f.answer(w, op, http.StatusOK, items)
}

func (f *fakeGitHub) listReviews(w http.ResponseWriter, r *http.Request) {
	list(f, w, r, opListReviews, func() []*gogithub.PullRequestReview { return f.reviews })
}

func (f *fakeGitHub) createReview(w http.ResponseWriter, r *http.Request) {
	req, ok := received[gogithub.PullRequestReviewRequest](f, w, r, opCreateReview)
	if !ok {
		return
	}
	state := map[string]string{"COMMENT": "COMMENTED", "REQUEST_CHANGES": "CHANGES_REQUESTED"}[req.GetEvent()]
	if state == "" || req.GetBody() == "" {
		f.answer(w, opCreateReview, http.StatusUnprocessableEntity, map[string]any{"message": "Validation Failed"})
		return
	}
	f.mu.Lock()
	f.nextID++
	rv := f.storeReview(f.nextID, botLogin, req.GetBody())
	rv.State = gogithub.String(state)
	f.comments[f.nextID] = req.Comments
	f.mu.Unlock()
	f.answer(w, opCreateReview, http.StatusOK, rv)
}

// addReview stores a review as if its author had posted it.
func (f *fakeGitHub) addReview(id int64, author, body string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.storeReview(id, author, body)
}

// storeReview is addReview for a caller that holds mu.
func (f *fakeGitHub) storeReview(id int64, author, body string) *gogithub.PullRequestReview {
	rv := &gogithub.PullRequestReview{ID: gogithub.Int64(id), User: user(author), Body: gogithub.String(body),
		State: gogithub.String("COMMENTED"), HTMLURL: gogithub.String(fmt.Sprintf("https://github.test/acme/widgets/pull/7#pullrequestreview-%d", id))}
	f.reviews = append(f.reviews, rv)
	return rv
}

func (f *fakeGitHub) listIssues(w http.ResponseWriter, r *http.Request) {
	creator := r.URL.Query().Get("creator")
	list(f, w, r, opListIssues, func() []*gogithub.Issue {
		var mine []*gogithub.Issue
		for _, is := range f.issues {
			if creator == "" || strings.EqualFold(is.GetUser().GetLogin(), creator) {
				mine = append(mine, is)
			}
		}
		sort.Slice(mine, func(i, j int) bool { return mine[i].GetNumber() > mine[j].GetNumber() })
		return mine
	})
}

// issueRequest is a create issue request and whether it named its labels
// null.
type issueRequest struct {
	gogithub.IssueRequest
	nullLabels bool
}

func (q *issueRequest) UnmarshalJSON(b []byte) error {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(b, &fields); err != nil {
		return err
	}
	labels, ok := fields["labels"]
	q.nullLabels = ok && string(labels) == "null"
	return json.Unmarshal(b, &q.IssueRequest)
}

func (f *fakeGitHub) createIssue(w http.ResponseWriter, r *http.Request) {
	req, ok := received[issueRequest](f, w, r, opCreateIssue)
	if !ok {
		return
	}
	if req.nullLabels {
		// GitHub's schema check: labels may be left out, never null.
		f.answer(w, opCreateIssue, http.StatusUnprocessableEntity, map[string]string{
			"message":           "Invalid request.\n\nFor 'properties/labels', nil is not an array.",
			"documentation_url": "https://docs.github.com/rest/issues/issues#create-an-issue",
		})
		return
	}
	f.mu.Lock()
	is := f.storeIssue(botLogin, req.GetTitle(), req.GetBody())
	if req.Labels != nil {
		for _, l := range *req.Labels {
			is.Labels = append(is.Labels, &gogithub.Label{Name: gogithub.String(l)})
		}
	}
	f.mu.Unlock()
	f.answer(w, opCreateIssue, http.StatusCreated, is)
}

// addIssue stores an issue as if its author had filed it.
func (f *fakeGitHub) addIssue(author, title, body string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.storeIssue(author, title, body)
}

// addPullRequest stores a pull request, which GitHub lists among the issues.
func (f *fakeGitHub) addPullRequest(author, title, body string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.storeIssue(author, title, body).PullRequestLinks = &gogithub.PullRequestLinks{URL: gogithub.String("pulls")}
}

// storeIssue is addIssue for a caller that holds mu.
func (f *fakeGitHub) storeIssue(author, title, body string) *gogithub.Issue {
	n := len(f.issues) + 1
	is := &gogithub.Issue{ID: gogithub.Int64(int64(90000 + n)), Number: gogithub.Int(n), Title: gogithub.String(title),
		Body: gogithub.String(body), User: user(author), State: gogithub.String("open"),
		HTMLURL: gogithub.String(fmt.Sprintf("https://github.test/acme/widgets/issues/%d", n))}
	f.issues = append(f.issues, is)
	return is
}

func (f *fakeGitHub) labelsNow() []*gogithub.Label {
	labels := make([]*gogithub.Label, 0, len(f.prLabels))
	for _, l := range f.prLabels {
		labels = append(labels, &gogithub.Label{Name: gogithub.String(l)})
	}
	return labels
}

func (f *fakeGitHub) getIssue(w http.ResponseWriter, r *http.Request) {
	if !f.enter(w, r, opGetIssue) {
		return
	}
	f.mu.Lock()
	labels := f.labelsNow()
	f.mu.Unlock()
	f.answer(w, opGetIssue, http.StatusOK, labels)
}

func (f *fakeGitHub) listRepoLabels(w http.ResponseWriter, r *http.Request) {
	if !f.enter(w, r, opRepoLabels) {
		return
	}
	f.mu.Lock()
	labels := make([]*gogithub.Label, 0, len(f.repoLabels))
	for _, l := range f.repoLabels {
		labels = append(labels, &gogithub.Label{Name: gogithub.String(l)})
	}
	f.mu.Unlock()
	f.answer(w, opRepoLabels, http.StatusOK, labels)
}

func (f *fakeGitHub) addLabels(w http.ResponseWriter, r *http.Request) {
	names, ok := received[[]string](f, w, r, opAddLabels)
	if !ok {
		return
	}
	f.mu.Lock()
	for _, n := range names {
		present := false
		for _, have := range f.prLabels {
			present = present || strings.EqualFold(have, n)
		}
		if !present {
			f.prLabels = append(f.prLabels, n)
		}
	}
	labels := f.labelsNow()
	f.mu.Unlock()
	f.answer(w, opAddLabels, http.StatusOK, labels)
}

// registry registers the three actions as a worker would, gated.
func registry(t *testing.T, acc ghtools.Access) (*tools.Registry, tools.Agent) {
	t.Helper()
	reg := tools.NewRegistry()
	for _, a := range []tools.Action{ghtools.NewCreateReview(acc), ghtools.NewAddLabels(acc), ghtools.NewCreateIssue(acc)} {
		require.NoError(t, reg.Add(a, tools.AlwaysAsk))
	}
	agent := tools.Agent{Name: "t", Tools: []tools.AgentTool{{Name: api.ToolCreatePullRequestReview}, {Name: api.ToolAddLabels}, {Name: api.ToolCreateIssue}}}
	require.NoError(t, reg.AddAgent(agent))
	return reg, agent
}

// approvedCall runs a model's call through the registry's checks, as the
// workflow does, and returns it as approved under operationKey.
func approvedCall(t *testing.T, tool, args, operationKey string) tools.Call {
	t.Helper()
	reg, agent := registry(t, nil)
	c, refusal := reg.Check(agent, api.ToolCall{ID: "c1", Name: tool, Arguments: json.RawMessage(args)}, pr)
	require.Empty(t, refusal)
	require.True(t, c.Ask, "the actions are registered AlwaysAsk")
	c.Call.OperationKey = operationKey
	c.Call.Approved = c.Preview
	return c.Call
}

// refusal is why the registry refuses a call, or "".
func refusal(t *testing.T, tool, args string) string {
	t.Helper()
	reg, agent := registry(t, nil)
	_, why := reg.Check(agent, api.ToolCall{ID: "c1", Name: tool, Arguments: json.RawMessage(args)}, pr)
	return why
}

// outerType is the application error type Temporal records for err: only
// the outermost error counts, and a plain error (outcome unknown) has none.
func outerType(err error) string {
	if appErr, ok := err.(*temporal.ApplicationError); ok {
		return appErr.Type()
	}
	return ""
}
