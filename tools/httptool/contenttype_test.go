package httptool_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/tools/httptool"
)

// A request with a body says it is JSON; one without says nothing of a
// body it does not have.
func TestOnlyARequestWithABodyIsSentAsJSON(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]string{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen[r.Method] = r.Header.Get("Content-Type")
		mu.Unlock()
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(srv.Close)
	tool, err := httptool.New(httptool.Config{BaseURL: srv.URL, AllowedMethods: []string{"POST", "GET"}, AllowedPaths: []string{"/v1/orders"}})
	require.NoError(t, err)

	_, err = tool.Execute(context.Background(), callOf(`{"method":"POST","path":"/v1/orders","body":{"item":"book"}}`))
	require.NoError(t, err)
	_, err = tool.Execute(context.Background(), callOf(`{"method":"GET","path":"/v1/orders"}`))
	require.NoError(t, err)
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, map[string]string{"POST": "application/json", "GET": ""}, seen)
}
