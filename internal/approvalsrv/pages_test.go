package approvalsrv

import (
	"html/template"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestPagesUseOnlyEmbeddedAssets(t *testing.T) {
	external := regexp.MustCompile(`(?i)(src|href)=["']?(https?:)?//|@import|url\(\s*["']?(https?:)?//`)
	err := fs.WalkDir(webFiles, "web", func(path string, d fs.DirEntry, err error) error {
		require.NoError(t, err)
		if d.IsDir() {
			return nil
		}
		content, err := fs.ReadFile(webFiles, path)
		require.NoError(t, err)
		require.False(t, external.Match(content), "%s refers to an external resource", path)
		return nil
	})
	require.NoError(t, err)
}

// A template failure is logged; the browser gets a bare 500 that names no
// template or field.
func TestPageWhoseTemplateFailsAnswersABare500(t *testing.T) {
	srv, err := New(testConfig(), testOptions(Options{Runs: newFakeRuns()}))
	require.NoError(t, err)
	p := srv.pages
	p.templates = template.Must(template.New("pages").Parse(`{{define "inbox.html"}}{{template "undefined" .}}{{end}}`))
	w := httptest.NewRecorder()

	p.serveInbox(w, httptest.NewRequest(http.MethodGet, "/", nil))

	require.Equal(t, http.StatusInternalServerError, w.Code)
	require.Equal(t, "internal error", strings.TrimSpace(w.Body.String()))
}
