package httpstatus

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRecorderKeepsTheStatusTheClientGets(t *testing.T) {
	for name, tc := range map[string]struct {
		handle func(w http.ResponseWriter)
		want   int
	}{
		"implicit 200 on the first write": {func(w http.ResponseWriter) { _, _ = w.Write([]byte("x")) }, http.StatusOK},
		"explicit status":                 {func(w http.ResponseWriter) { w.WriteHeader(http.StatusTeapot) }, http.StatusTeapot},
		"a second status is not sent":     {func(w http.ResponseWriter) { w.WriteHeader(http.StatusNotFound); w.WriteHeader(http.StatusOK) }, http.StatusNotFound},
		"nothing written":                 {func(http.ResponseWriter) {}, 0},
	} {
		t.Run(name, func(t *testing.T) {
			rec := &Recorder{ResponseWriter: httptest.NewRecorder()}
			tc.handle(rec)
			require.Equal(t, tc.want, rec.Status)
		})
	}
}

func TestRecorderUnwrapsToTheRealWriter(t *testing.T) {
	inner := httptest.NewRecorder()
	rec := &Recorder{ResponseWriter: inner}
	require.NoError(t, http.NewResponseController(rec).Flush())
	require.True(t, inner.Flushed)
}
