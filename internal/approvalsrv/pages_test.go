package approvalsrv

import (
	"context"
	"html/template"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/runclient"
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
	p, err := NewPages(PageOptions{
		Inbox:  func(context.Context) ([]runclient.PendingApproval, error) { return nil, nil },
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Now: time.Now, InsecureDev: true,
	})
	require.NoError(t, err)
	p.templates = template.Must(template.New("pages").Parse(`{{define "inbox.html"}}{{template "undefined" .}}{{end}}`))
	w := httptest.NewRecorder()

	p.Inbox(w, httptest.NewRequest(http.MethodGet, "/", nil))

	require.Equal(t, http.StatusInternalServerError, w.Code)
	require.Equal(t, "internal error", strings.TrimSpace(w.Body.String()))
}
