package approvalsrv

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// A path that ends on "actions" or "steps" names no ID to check: it is no
// route, and the check must let ServeMux say so rather than fail itself.
func TestPathEndingBeforeAnIDIsLeftToTheRoutes(t *testing.T) {
	require.NoError(t, PathIDsError("/v1/runs/run-1/actions"))
	require.NoError(t, PathIDsError("/runs/run-1/steps"))

	h := waitingHarness(t, nil, "alice")
	resp := h.do(http.MethodPost, "/v1/runs/run-1/actions", strings.NewReader("{}"), map[string]string{"Content-Type": "application/json"})

	require.Equal(t, http.StatusNotFound, resp.StatusCode)
}
