// This file is a fake OpenAI-compatible chat-completions provider
// over real HTTP. It answers recorded replies in order and keeps every
// request, so that tests drive the real openai-go client end to end and can
// assert what it sent. A request with "stream": true gets its reply as
// Server-Sent Events: the recorded completion cut into chunks (stream.go),
// or the scripted chunks of Reply.Stream.

package standalone

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// APIKey is shaped like a real key, so that the scrubbing is tested on the
// real shape; the recorded error_401_invalid_api_key.json fixtures show it
// masked as OpenAI does.
const APIKey = "sk-test-agentrun-4f9c2b7e1d0a8c63-secret"

// ChatCompletionsPath is the one path the openai-go client may call.
const ChatCompletionsPath = "/v1/chat/completions"

// fixtureDir holds the recorded chat completions, relative to the package
// directory that `go test` runs in.
var fixtureDir = filepath.Join("testdata", "openai")

// Reply is one recorded answer.
type Reply struct {
	Status int
	Header map[string]string
	// Fixture is a file under the tested package's testdata/openai.
	Fixture string
	// Body is sent when Fixture is empty.
	Body string
	// Stream, when set, is the answer to a streamed request instead of the
	// recorded completion's own chunks.
	Stream *Stream
}

// OK is a 200 answer with a recorded chat completion.
func OK(fixture string) Reply { return Reply{Status: http.StatusOK, Fixture: fixture} }

// Request is what the client sent.
type Request struct {
	Method string
	Path   string
	Header http.Header
	Body   []byte
}

// Server is a running fake provider.
type Server struct {
	// URL is the server's root, as in httptest.Server.
	URL string

	t       testing.TB
	http    *httptest.Server
	mu      sync.Mutex
	replies []Reply
	got     []Request
}

// Start starts a fake provider that answers replies in order and stops when
// the test ends. A request past the last reply, or to another path than
// ChatCompletionsPath, fails the test.
func Start(t testing.TB, replies ...Reply) *Server {
	t.Helper()
	s := &Server{t: t, replies: replies}
	s.http = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.http.URL
	t.Cleanup(s.http.Close)
	return s
}

// BaseURL is what a client's base URL must be to reach the fake.
func (s *Server) BaseURL() string { return s.URL + "/v1" }

// Close stops the server early, e.g. to make the provider unreachable.
func (s *Server) Close() { s.http.Close() }

// Requests are the requests received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.got...)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		s.t.Errorf("openaifake: read request body: %v", err)
	}
	next, ok := s.record(Request{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body})
	if !ok {
		http.Error(w, `{"error":{"message":"no recorded reply"}}`, http.StatusTeapot)
		return
	}
	payload := []byte(next.Body)
	if next.Fixture != "" {
		payload, err = os.ReadFile(filepath.Join(fixtureDir, next.Fixture))
		if err != nil {
			s.t.Errorf("openaifake: read fixture: %v", err)
			http.Error(w, `{"error":{"message":"fixture missing"}}`, http.StatusTeapot)
			return
		}
	}
	if next.Status == http.StatusOK && (next.Stream != nil || streamed(body)) {
		s.serveStream(w, r, next, payload)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	for k, v := range next.Header {
		w.Header().Set(k, v)
	}
	w.WriteHeader(next.Status)
	_, _ = w.Write(payload)
}

// record keeps the request and takes the next reply; it fails the test when
// the request was not expected.
func (s *Server) record(req Request) (Reply, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.got = append(s.got, req)
	if len(s.replies) == 0 || req.Path != ChatCompletionsPath {
		s.t.Errorf("openaifake: unexpected request %s %s (%d replies left)", req.Method, req.Path, len(s.replies))
		return Reply{}, false
	}
	next := s.replies[0]
	s.replies = s.replies[1:]
	return next, true
}
