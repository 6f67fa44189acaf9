package httptool_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/tools/httptool"
)

// An answer of exactly the bound is shown whole, as the JSON it is; one
// byte more is cut and says so.
func TestAnAnswerOfExactlyTheBoundIsShownWhole(t *testing.T) {
	const bound = 64
	answer := `{"id":"` + strings.Repeat("x", bound-len(`{"id":""}`)) + `"}`
	require.Len(t, answer, bound)
	var body string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	tool, err := httptool.New(httptool.Config{BaseURL: srv.URL, AllowedMethods: []string{"POST"}, AllowedPaths: []string{"/v1/orders"},
		MaxResponseBytes: bound})
	require.NoError(t, err)

	body = answer
	out, err := tool.Execute(context.Background(), callOf(`{"method":"POST","path":"/v1/orders"}`))
	require.NoError(t, err)
	_, got, truncated := decodeContent(t, out)
	assert.Empty(t, truncated)
	var want map[string]any
	require.NoError(t, json.Unmarshal([]byte(answer), &want))
	assert.Equal(t, want, got, "shown whole, as JSON")

	body = answer + " "
	out, err = tool.Execute(context.Background(), callOf(`{"method":"POST","path":"/v1/orders"}`))
	require.NoError(t, err)
	_, _, truncated = decodeContent(t, out)
	assert.Equal(t, "the body is longer than 64 bytes; this is its start", truncated)
}
