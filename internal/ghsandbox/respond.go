package ghsandbox

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Documentation links GitHub puts in error bodies.
const (
	docsGetPull        = "https://docs.github.com/rest/pulls/pulls#get-a-pull-request"
	docsListFiles      = "https://docs.github.com/rest/pulls/pulls#list-pull-requests-files"
	docsListComments   = "https://docs.github.com/rest/issues/comments#list-issue-comments"
	docsCreateComment  = "https://docs.github.com/rest/issues/comments#create-an-issue-comment"
	docsPermission     = "https://docs.github.com/rest/collaborators/collaborators#get-repository-permissions-for-a-user"
	docsPrimaryLimit   = "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-rate-limits"
	docsSecondaryLimit = "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"
	docsREST           = "https://docs.github.com/rest"
)

// apiResponse is a response computed before it is written, so that a fault
// can decide whether and when it reaches the client.
type apiResponse struct {
	status int
	header http.Header
	body   []byte
}

func jsonResponse(status int, v any) apiResponse {
	body, err := json.Marshal(v)
	if err != nil {
		return apiResponse{
			status: http.StatusInternalServerError,
			header: http.Header{"Content-Type": {"text/plain; charset=utf-8"}},
			body:   []byte("ghsandbox: encode response: " + err.Error()),
		}
	}
	return apiResponse{
		status: status,
		header: http.Header{"Content-Type": {"application/json; charset=utf-8"}},
		body:   body,
	}
}

func (resp apiResponse) write(w http.ResponseWriter) {
	h := w.Header()
	for k, v := range resp.header {
		h[k] = v
	}
	h.Set("Content-Length", strconv.Itoa(len(resp.body)))
	w.WriteHeader(resp.status)
	_, _ = w.Write(resp.body) // the client may be gone; nothing to do about it
}

// withHealthyRateLimit adds the rate-limit headers GitHub sends on every
// answer, unless a fault already set its own.
func (resp apiResponse) withHealthyRateLimit(now time.Time) apiResponse {
	if resp.header.Get("X-RateLimit-Remaining") != "" {
		return resp
	}
	resp.header.Set("X-RateLimit-Limit", "5000")
	resp.header.Set("X-RateLimit-Remaining", "4999")
	resp.header.Set("X-RateLimit-Used", "1")
	resp.header.Set("X-RateLimit-Reset", strconv.FormatInt(now.Add(time.Hour).Unix(), 10))
	resp.header.Set("X-RateLimit-Resource", "core")
	return resp
}

// errorBody is GitHub's error shape, which go-github decodes into ErrorResponse.
type errorBody struct {
	Message          string            `json:"message"`
	Errors           []validationError `json:"errors,omitempty"`
	DocumentationURL string            `json:"documentation_url"`
	Status           string            `json:"status"`
}

type validationError struct {
	Resource string `json:"resource"`
	Field    string `json:"field"`
	Code     string `json:"code"`
	Message  string `json:"message,omitempty"`
}

func errorResponse(status int, message, docs string, errs ...validationError) apiResponse {
	return jsonResponse(status, errorBody{
		Message:          message,
		Errors:           errs,
		DocumentationURL: docs,
		Status:           strconv.Itoa(status),
	})
}

func notFound(docs string) apiResponse {
	return errorResponse(http.StatusNotFound, "Not Found", docs)
}

func validationFailed(docs string, errs ...validationError) apiResponse {
	return errorResponse(http.StatusUnprocessableEntity, "Validation Failed", docs, errs...)
}

// GitHub's page size rules.
const (
	defaultPerPage = 30
	maxPerPage     = 100
)

type pageRequest struct {
	page    int
	perPage int
}

// parsePageRequest reads page and per_page the way GitHub does: missing or
// unusable values fall back to the defaults, per_page is capped at 100.
func parsePageRequest(q url.Values) pageRequest {
	p := pageRequest{page: 1, perPage: defaultPerPage}
	if n, err := strconv.Atoi(q.Get("page")); err == nil && n > 0 {
		p.page = n
	}
	if n, err := strconv.Atoi(q.Get("per_page")); err == nil && n > 0 {
		p.perPage = min(n, maxPerPage)
	}
	return p
}

func (p pageRequest) lastPage(total int) int {
	return max(1, (total+p.perPage-1)/p.perPage)
}

func pageOf[T any](items []T, p pageRequest) []T {
	start := (p.page - 1) * p.perPage
	if start >= len(items) {
		return []T{}
	}
	end := min(start+p.perPage, len(items))
	return items[start:end]
}

// paginated answers one page of items with GitHub's Link header.
func paginated[T any](r *http.Request, items []T) apiResponse {
	p := parsePageRequest(r.URL.Query())
	resp := jsonResponse(http.StatusOK, pageOf(items, p))
	if link := linkHeader(r, p, len(items)); link != "" {
		resp.header.Set("Link", link)
	}
	return resp
}

func linkHeader(r *http.Request, p pageRequest, total int) string {
	last := p.lastPage(total)
	var links []string
	add := func(page int, rel string) {
		links = append(links, fmt.Sprintf("<%s>; rel=%q", pageURL(r, page), rel))
	}
	if p.page > 1 {
		add(min(p.page-1, last), "prev")
	}
	if p.page < last {
		add(p.page+1, "next")
		add(last, "last")
	}
	if p.page > 1 {
		add(1, "first")
	}
	return strings.Join(links, ", ")
}

// pageURL is the URL the client asked for with another page number, keeping
// the path prefix it used.
func pageURL(r *http.Request, page int) string {
	u := requestURL(r)
	q := u.Query()
	q.Set("page", strconv.Itoa(page))
	u.RawQuery = q.Encode()
	return u.String()
}

// requestURL rebuilds the absolute URL the client used, before any prefix was stripped.
func requestURL(r *http.Request) *url.URL {
	u := *r.URL
	if r.RequestURI != "" {
		if parsed, err := url.ParseRequestURI(r.RequestURI); err == nil {
			u = *parsed
		}
	}
	u.Scheme = scheme(r)
	u.Host = r.Host
	return &u
}

func scheme(r *http.Request) string {
	if r.TLS != nil {
		return "https"
	}
	return "http"
}

// webBase is the sandbox's stand-in for https://github.com.
func webBase(r *http.Request) string {
	return scheme(r) + "://" + r.Host
}

// apiBase is the API root the client used: the host, plus /api/v3 if it came that way.
func apiBase(r *http.Request) string {
	base := webBase(r)
	if strings.HasPrefix(r.RequestURI, enterprisePrefix+"/") {
		base += enterprisePrefix
	}
	return base
}
