// Package ghsandbox is a fake GitHub: the REST subset agentrun uses, held in
// memory, with faults that can be injected per operation (lost responses,
// delays, error statuses and rate limits shaped exactly like GitHub's).
// It serves pull requests, their files and reviews, issue comments and
// labels, issues (whose list holds the pull requests too, as GitHub's does),
// check runs and collaborator permissions. The token is the fixture's bot: GET /user
// names it and it writes everything created through the API; POST
// /_sandbox/comments writes a comment as anybody else. Tests mount it with
// httptest; `go run ./internal/ghsandbox/cmd/ghsandbox` serves it for the
// local stack. The package holds the sandbox's state and routes; wire holds
// what its answers look like (GitHub's objects, checked against GitHub's REST
// description by conformance_test.go), faults the fault queue and request
// log, fixture the starting state, statefile its state file.
//
// The same server also serves the merchant service the recommend agent
// reads (internal/merchantsandbox), on the same port, fault queue and
// request log, so that `make up` runs one sandbox; that service is not
// GitHub's and keeps its own package.
package ghsandbox

import (
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agentrun/agentrun/internal/merchantsandbox"
)

// Operations a fault can target; they also name requests in the request log.
const (
	OpGetPullRequest = "get_pull_request"
	OpListFiles      = "list_files"
	OpListComments   = "list_comments"
	OpCreateComment  = "create_comment"
	OpGetPermission  = "get_collaborator_permission"
	OpGetUser        = "get_authenticated_user"
	OpCreateReview   = "create_review"
	OpListReviews    = "list_reviews"
	OpAddLabels      = "add_labels"
	OpListLabels     = "list_labels"
	OpListRepoLabels = "list_repo_labels"
	OpCreateIssue    = "create_issue"
	OpListIssues     = "list_issues"
	opUnknown        = "unknown"
)

// Server is the sandbox. It is an http.Handler and safe for concurrent use.
type Server struct {
	mux *http.ServeMux
	// pages serves the web pages html_urls lead to; it is apart from mux
	// because its /{owner}/{repo}/... patterns overlap the API's /repos/...
	// ones, which ServeMux refuses.
	pages    *http.ServeMux
	faults   *Queue
	requests Log

	// mu guards everything below: the repositories' state.
	mu            sync.Mutex
	botLogin      string
	repos         map[string]*repoState
	nextCommentID int64
	// statePath is the file the mutable state is saved to after every
	// change (NewPersistent); empty keeps it in memory only.
	statePath string

	merchants merchantsandbox.Service
	// app is the GitHub App the sandbox speaks for (SetApp, app.go); nil
	// before one is set.
	app *appState
	// webhook is where pull request events are delivered (SetWebhook,
	// pushes.go).
	webhook Webhook
	// commits are the commits pushed (pushes.go), for the compare API
	// (compare.go), keyed by repository and SHA.
	commits map[string]commitRecord
}

// New returns a sandbox holding a copy of fixture.
func New(fixture Fixture) *Server {
	s := &Server{
		mux:           http.NewServeMux(),
		pages:         http.NewServeMux(),
		faults:        NewQueue(slices.Concat(servedOps, appOps, []string{OpCompare}, merchantsandbox.Ops)),
		botLogin:      fixture.BotLogin,
		repos:         newRepoStates(fixture),
		nextCommentID: firstCommentID,
	}
	s.seedComments(fixture)
	s.routes()
	return s
}

func (s *Server) routes() {
	s.mux.Handle("GET /repos/{owner}/{repo}/pulls/{number}", s.api(OpGetPullRequest, s.onPull(DocsGetPull, getPullRequest)))
	s.mux.Handle("GET /repos/{owner}/{repo}/pulls/{number}/files", s.api(OpListFiles, s.onPull(DocsListFiles, listFiles)))
	s.mux.Handle("GET /repos/{owner}/{repo}/issues/{number}/comments", s.api(OpListComments, s.onPull(DocsListComments, listComments)))
	s.mux.Handle("POST /repos/{owner}/{repo}/issues/{number}/comments", s.api(OpCreateComment, s.createComment))
	// issues/comments/{id} next to issues/{number}/comments is ambiguous to
	// ServeMux; the wider pattern serves only the first segment "comments".
	s.mux.Handle("GET /repos/{owner}/{repo}/issues/{comments}/{id}", s.api(OpGetComment, s.getComment))
	s.mux.Handle("PATCH /repos/{owner}/{repo}/issues/comments/{id}", s.api(OpEditComment, s.editComment))
	s.mux.Handle("GET /repos/{owner}/{repo}/pulls/{number}/reviews", s.api(OpListReviews, s.onPull(DocsListReviews, listReviews)))
	s.mux.Handle("POST /repos/{owner}/{repo}/pulls/{number}/reviews", s.api(OpCreateReview, s.createReview))
	s.mux.Handle("GET /repos/{owner}/{repo}/issues/{number}/labels", s.api(OpListLabels, s.onRepo(DocsListLabels, listLabels)))
	s.mux.Handle("POST /repos/{owner}/{repo}/issues/{number}/labels", s.api(OpAddLabels, s.addLabels))
	s.mux.Handle("GET /repos/{owner}/{repo}/labels", s.api(OpListRepoLabels, s.onRepo(DocsListRepoLabels, listRepoLabels)))
	s.mux.Handle("GET /repos/{owner}/{repo}/issues", s.api(OpListIssues, s.onRepo(DocsListIssues, listIssues)))
	s.mux.Handle("POST /repos/{owner}/{repo}/issues", s.api(OpCreateIssue, s.createIssue))
	s.mux.Handle("GET /repos/{owner}/{repo}/collaborators/{username}/permission", s.api(OpGetPermission, s.getPermission))
	s.mux.Handle("GET /user", s.api(OpGetUser, s.getAuthenticatedUser))
	s.mux.Handle("POST /repos/{owner}/{repo}/check-runs", s.api(OpCreateCheckRun, s.createCheckRun))
	s.mux.Handle("PATCH /repos/{owner}/{repo}/check-runs/{id}", s.api(OpUpdateCheckRun, s.updateCheckRun))
	s.mux.Handle("GET /repos/{owner}/{repo}/commits/{ref}/check-runs", s.api(OpListCheckRuns, s.onRepo(DocsListCheckRuns, s.listCheckRuns)))
	s.appRoutes()
	s.compareRoutes()
	for _, rt := range s.merchants.Routes() {
		s.mux.Handle(rt.Pattern, s.api(rt.Op, answered(rt.Handle)))
	}
	s.mux.Handle("/", s.api(opUnknown, s.unknownRoute))

	s.pages.HandleFunc("GET /{owner}/{repo}/pull/{number}", s.servePullPage)

	s.mux.HandleFunc("GET /_sandbox/faults", s.listFaultsHandler)
	s.mux.HandleFunc("POST /_sandbox/faults", s.addFaultsHandler)
	s.mux.HandleFunc("DELETE /_sandbox/faults", s.clearFaultsHandler)
	s.mux.HandleFunc("GET /_sandbox/requests", s.listRequestsHandler)
	s.mux.HandleFunc("DELETE /_sandbox/requests", s.clearRequestsHandler)
	s.mux.HandleFunc("POST "+ControlCommentsPath, s.postAsHandler)
	s.mux.HandleFunc("POST "+ControlPullEventsPath, s.pullEventHandler)
	s.mux.HandleFunc("POST "+ControlCheckActionsPath, s.pressHandler)
}

// ServeHTTP serves the API at the root and under /api/v3.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if rest, ok := strings.CutPrefix(r.URL.Path, EnterprisePrefix); ok && (rest == "" || rest[0] == '/') {
		r2 := r.Clone(r.Context())
		r2.URL.Path = rest
		r2.URL.RawPath = ""
		r = r2
	}
	if !strings.HasPrefix(r.URL.Path, "/repos/") {
		if _, pattern := s.pages.Handler(r); pattern != "" {
			s.pages.ServeHTTP(w, r) // it, not the handler, fills in the path values
			return
		}
	}
	s.mux.ServeHTTP(w, r)
}

// api wraps a REST handler with the request log and the fault queue. The
// handler returns its response instead of writing it, so that a fault can
// perform the action and then lose or hold back the answer.
func (s *Server) api(op string, handle func(*http.Request) Response) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		entry := s.requests.Arrive(op, r)
		if refusal, ok := s.authorize(op, r); !ok {
			s.requests.Outcome(entry, refusal.Status, "")
			refusal.WithHealthyRateLimit(time.Now()).Write(w)
			return
		}
		fault, faulted := s.faults.Take(op)

		var resp Response
		switch {
		case faulted && fault.Mode == ModeStatus:
			resp = StatusResponse(fault, time.Now())
		case faulted && fault.Mode == ModeLandLate:
			resp = landLate(r, time.Duration(fault.DelayMs)*time.Millisecond, handle)
		default:
			resp = handle(r)
		}
		s.requests.Outcome(entry, resp.Status, fault.Mode)

		if faulted {
			switch fault.Mode {
			case ModeDropResponse:
				Drop(w)
				return
			case ModeDelay:
				// Returning without writing would send an empty 200.
				if !Hold(r, time.Duration(fault.DelayMs)*time.Millisecond) {
					Drop(w)
					return
				}
			}
		}
		resp.WithHealthyRateLimit(time.Now()).Write(w)
	})
}

// answered is a merchant handler as one of the API's: its answer as JSON.
func answered(handle func(*http.Request) merchantsandbox.Answer) func(*http.Request) Response {
	return func(r *http.Request) Response {
		a := handle(r)
		resp := JSON(a.Status, a.Body)
		for k, v := range a.Header {
			resp.Header[k] = v
		}
		return resp
	}
}

// Merchants is the merchant service this sandbox serves.
func (s *Server) Merchants() *merchantsandbox.Service { return &s.merchants }

// Requests returns the request log, oldest first.
func (s *Server) Requests() []RequestRecord { return s.requests.Records() }

// ClearRequests empties the request log.
func (s *Server) ClearRequests() { s.requests.Clear() }

func (s *Server) unknownRoute(r *http.Request) Response {
	return NotFound(DocsREST)
}
