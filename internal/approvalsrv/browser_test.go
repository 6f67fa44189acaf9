package approvalsrv

import (
	"html"
	"maps"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// browser is a client with cookies, like the page's own fetches.
type browser struct {
	t      *testing.T
	h      *harness
	client *http.Client
	header map[string]string
}

func (h *harness) browser(header map[string]string) *browser {
	jar, err := cookiejar.New(nil)
	require.NoError(h.t, err)
	client := *h.http.Client()
	client.Jar = jar
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &browser{t: h.t, h: h, client: &client, header: header}
}

func (b *browser) do(method, path string, form url.Values, extra map[string]string) *http.Response {
	b.t.Helper()
	var body *strings.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	} else {
		body = strings.NewReader("")
	}
	req, err := http.NewRequest(method, b.h.http.URL+path, body)
	require.NoError(b.t, err)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for k, v := range b.header {
		req.Header.Set(k, v)
	}
	for k, v := range extra {
		req.Header.Set(k, v)
	}
	resp, err := b.client.Do(req)
	require.NoError(b.t, err)
	b.t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// submit posts form as the page's script does, asking for a JSON reply,
// with extra headers on top.
func (b *browser) submit(path string, form url.Values, extra map[string]string) *http.Response {
	b.t.Helper()
	headers := map[string]string{"Accept": "application/json"}
	maps.Copy(headers, extra)
	return b.do(http.MethodPost, path, form, headers)
}

// openRun loads the run page and returns its form's csrf and requestId
// (with several forms, the last one's).
func (b *browser) openRun(runID string) (string, url.Values) {
	b.t.Helper()
	resp := b.do(http.MethodGet, "/runs/"+runID, nil, nil)
	require.Equal(b.t, http.StatusOK, resp.StatusCode)
	page := readAll(b.t, resp)
	form := url.Values{}
	for _, in := range hiddenInput.FindAllStringSubmatch(page, -1) {
		if (in[1] == "csrf" || in[1] == "requestId") && in[2] != "" {
			form.Set(in[1], html.UnescapeString(in[2]))
		}
	}
	return page, form
}

var formTag = regexp.MustCompile(`(?s)<form class="decision" method="post" action="([^"]+)">(.*?)</form>`)
var hiddenInput = regexp.MustCompile(`<input type="hidden" name="([a-zA-Z]+)" value="([^"]*)">`)

// pageForms are the run page's decision forms, by action URL, each with
// its hidden fields in page order.
func pageForms(t *testing.T, page string) map[string]url.Values {
	t.Helper()
	forms := map[string]url.Values{}
	for _, m := range formTag.FindAllStringSubmatch(page, -1) {
		fields := url.Values{}
		for _, in := range hiddenInput.FindAllStringSubmatch(m[2], -1) {
			fields.Add(in[1], html.UnescapeString(in[2]))
		}
		forms[m[1]] = fields
	}
	return forms
}
