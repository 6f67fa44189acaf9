package httptool_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/tools/httptool"
)

func TestAToolWithoutWordsSaysItSendsARequest(t *testing.T) {
	tool, err := httptool.New(httptool.Config{BaseURL: "https://api.example.com", AllowedPaths: []string{"/"}})
	require.NoError(t, err)

	w := tool.Spec().Words.Or(tool.Spec().Name)
	require.Equal(t, "send a request", w.Do())
}

func TestAToolsWordsAndIDFieldNameWhatItMade(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		_, _ = w.Write([]byte(`{"id":"rec-1","partial":false}`))
	}))
	defer srv.Close()
	tool, err := httptool.New(httptool.Config{Name: "save_recommendation", BaseURL: srv.URL, AllowedPaths: []string{"/recommendations"},
		Words: api.ToolWords{Noun: "recommendation", Verb: "save", Past: "saved"}, IDField: "id"})
	require.NoError(t, err)

	out, err := tool.Execute(t.Context(), callOf(`{"method":"POST","path":"/recommendations","body":{}}`))

	require.NoError(t, err)
	require.Equal(t, "rec-1", out.ExternalID)
	w := tool.Spec().Words.Or(tool.Spec().Name)
	require.Equal(t, "save a recommendation", w.Do())
	require.Equal(t, "saved recommendation rec-1", w.Made()+" "+out.ExternalID)
}

// The server's answer is shown to people as the step's ID: a value that is
// not one short line of text names nothing.
func TestAnIDFieldThatIsNotAShortLineNamesNothing(t *testing.T) {
	for name, body := range map[string]string{
		"newline":  `{"id":"rec-1\nrun completed"}`,
		"escape":   `{"id":"rec-1\u001b[2J"}`,
		"too long": `{"id":"` + strings.Repeat("r", 101) + `"}`,
		"object":   `{"id":{"value":"rec-1"}}`,
		"missing":  `{"name":"rec-1"}`,
		"not JSON": `rec-1`,
		"an array": `["rec-1"]`,
		"empty":    `{"id":""}`,
	} {
		t.Run(name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusCreated)
				_, _ = w.Write([]byte(body))
			}))
			defer srv.Close()
			tool, err := httptool.New(httptool.Config{BaseURL: srv.URL, AllowedPaths: []string{"/r"}, IDField: "id"})
			require.NoError(t, err)

			out, err := tool.Execute(t.Context(), callOf(`{"method":"POST","path":"/r"}`))

			require.NoError(t, err)
			require.Empty(t, out.ExternalID)
		})
	}
}

func TestANumericIDFieldIsTheExternalID(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"id":1042}`))
	}))
	defer srv.Close()
	tool, err := httptool.New(httptool.Config{BaseURL: srv.URL, AllowedPaths: []string{"/r"}, IDField: "id"})
	require.NoError(t, err)

	out, err := tool.Execute(t.Context(), callOf(`{"method":"POST","path":"/r"}`))

	require.NoError(t, err)
	require.Equal(t, "1042", out.ExternalID)
}
