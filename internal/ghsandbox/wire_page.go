package ghsandbox

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// EnterprisePrefix is where GitHub Enterprise serves the API; clients
// configured for it work against the sandbox unchanged.
const EnterprisePrefix = "/api/v3"

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

// Paginated answers one page of items with GitHub's Link header.
func Paginated[T any](r *http.Request, items []T) Response {
	p := parsePageRequest(r.URL.Query())
	resp := JSON(http.StatusOK, pageOf(items, p))
	if link := linkHeader(r, p, len(items)); link != "" {
		resp.Header.Set("Link", link)
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

// WebBase is the sandbox's stand-in for https://github.com.
func WebBase(r *http.Request) string {
	return scheme(r) + "://" + r.Host
}

// APIBase is the API root the client used: the host, plus /api/v3 if it came that way.
func APIBase(r *http.Request) string {
	base := WebBase(r)
	if strings.HasPrefix(r.RequestURI, EnterprisePrefix+"/") {
		base += EnterprisePrefix
	}
	return base
}
